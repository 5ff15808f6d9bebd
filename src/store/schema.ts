/**
 * Table types for Kysely. Column names are snake_case as in SQL; timestamps are seconds since
 * the epoch as floating point numbers (INTERFACE.md wants fractions); JSON documents are stored
 * as text so that SQLite and PostgreSQL hold byte-identical documents.
 */
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface ProjectsTable {
  id: string;
  account_id: string;
  name: string;
  created_at: number;
}

export interface AccessKeysTable {
  id: string;
  secret: string;
  account_id: string;
  user_name: string;
  status: string;
  created_at: number;
  revoked_at: number | null;
}

export interface ToolsTable {
  id: string;
  project_id: string;
  name: string;
  version: number;
  description: string;
  status: string;
  visibility: string;
  category: string;
  configs: string | null;
  /** The CWL document of a version imported from CWL (migration 0011), as JSON; null otherwise. */
  cwl: string | null;
  created_at: number;
  modified_at: number;
}

export interface WorkflowsTable {
  id: string;
  project_id: string;
  name: string;
  version: number;
  description: string;
  status: string;
  visibility: string;
  configs: string | null;
  run_template: string | null;
  /** The CWL document of a version imported from CWL (migration 0011), as JSON; null otherwise. */
  cwl: string | null;
  created_at: number;
  modified_at: number;
}

/** Which tool versions a workflow version pins; a foreign key keeps pinned tools from deletion. */
export interface WorkflowToolsTable {
  workflow_id: string;
  tool_id: string;
}

export interface TasksTable {
  id: string;
  project_id: string;
  name: string;
  workflow_id: string;
  workflow_name: string;
  workflow_version: number;
  user_name: string;
  status: string;
  reason: string;
  parameters: string;
  plan: string;
  schedule_at: number | null;
  stop_requested: number;
  /** Set by a DELETE while a worker holds the task: the owner kills its jobs, removes its files and the rows. */
  delete_requested: Generated<number>;
  /** The worker holding the task's lease, and when the lease ends (seconds, the database's clock). */
  owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  modified_at: number;
}

export interface JobsTable {
  id: string;
  task_id: string;
  node_id: string;
  name: string;
  status: string;
  reason: string;
  command: string;
  spec: string;
  attempt: number;
  exit_code: number | null;
  cpu: number;
  mem_mb: number;
  /** The executor's handle of a job that can outlive its worker (a Slurm job id, a container name). */
  external_id: string | null;
  /** The digest of the container image the latest attempt ran in (migration 0004). */
  image_digest: string | null;
  started_at: number | null;
  ended_at: number | null;
  modified_at: number;
  /** Every ended attempt, a JSON list (migration 0006). */
  attempts: Generated<string>;
  cache_key: string | null;
  /** JSON: what the cache key was made of. */
  cache_parts: string | null;
  cached_from: string | null;
  cache_lookup: string | null;
  /** JSON: output file → {size, mtimeMs}. */
  output_stamps: string | null;
  /** JSON: the job's output object, for a job whose outputs are values (migration 0010). */
  outputs: string | null;
}

/** The content hash of a stored data item, valid while its size and modification time are these (migration 0006). */
export interface ContentHashesTable {
  account: string;
  path: string;
  sha256: string;
  size: number;
  mtime_ms: number;
}

/** Which task, job and store step put a data item in the store, and the item's stamp then (migration 0009). */
export interface DataProvenanceTable {
  account: string;
  path: string;
  task_id: string;
  task_name: string;
  job_id: string | null;
  node_id: string | null;
  store_job_id: string;
  store_node_id: string;
  size: number;
  mtime_ms: number;
  stored_at: number;
}

export interface TaskEventsTable {
  id: Generated<number>;
  task_id: string;
  job_id: string | null;
  from_status: string | null;
  to_status: string;
  reason: string;
  at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** One write asked of the API or `gdflow admin`, made or refused (migration 0005). */
export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  request_id: string;
  actor_account: string | null;
  actor_key_id: string | null;
  actor_user: string;
  account: string;
  operation: string;
  target: string;
  outcome: string;
  reason: string;
  /** Where the request came from (migration 0007); null for `gdflow admin` and older rows. */
  client_address: string | null;
}

/** A bearer token of the GA4GH APIs (migration 0012): only the SHA-256 of its secret is kept. */
export interface AccessTokensTable {
  id: string;
  secret_sha256: string;
  account_id: string;
  /** The one project the token may act in, or null: the account's default project. */
  project_name: string | null;
  user_name: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Which tasks are TES tasks, with their TES name (migration 0012). */
export interface TesTasksTable {
  task_id: string;
  project_id: string;
  name: string;
  created_at: number;
}

/** A TES task's tags (migration 0012). */
export interface TesTaskTagsTable {
  task_id: string;
  key: string;
  value: string;
}

/** A WDL workflow or tool of a project (migration 0013); its versions are in wdl_workflow_versions. */
export interface WdlWorkflowsTable {
  id: string;
  project_id: string;
  /** 'workflow' or 'tool'. */
  kind: string;
  name: string;
  created_at: number;
}

/** One version of a WDL workflow or tool: its document as uploaded and its input template (migration 0013). */
export interface WdlWorkflowVersionsTable {
  id: string;
  workflow_id: string;
  version: number;
  description: string;
  source_name: string;
  source: string;
  dependencies_name: string | null;
  /** The zip of the imports, base64. */
  dependencies: string | null;
  /** JSON: the input template. */
  inputs: string;
  created_at: number;
  modified_at: number;
}

/** Which tasks run a WDL version, and the task a restart was made from (migration 0013). */
export interface WdlTasksTable {
  task_id: string;
  project_id: string;
  workflow_id: string;
  version: number;
  source_id: string | null;
  /** JSON: what the task was asked to run (inputs, output_dir, ...). */
  request: string;
  created_at: number;
}

export interface Database {
  accounts: AccountsTable;
  projects: ProjectsTable;
  access_keys: AccessKeysTable;
  tools: ToolsTable;
  workflows: WorkflowsTable;
  workflow_tools: WorkflowToolsTable;
  tasks: TasksTable;
  jobs: JobsTable;
  task_events: TaskEventsTable;
  settings: SettingsTable;
  audit_log: AuditLogTable;
  content_hashes: ContentHashesTable;
  data_provenance: DataProvenanceTable;
  access_tokens: AccessTokensTable;
  tes_tasks: TesTasksTable;
  tes_task_tags: TesTaskTagsTable;
  wdl_workflows: WdlWorkflowsTable;
  wdl_workflow_versions: WdlWorkflowVersionsTable;
  wdl_tasks: WdlTasksTable;
}
