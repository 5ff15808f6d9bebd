/** The API answers the console reads (docs/api.md, docs/wire.md §4), as far as it reads them. */

export interface ToolSummary {
  tool_name: string;
  tool_version: number;
  tool_id: string;
  description: string;
  status: 'checked' | 'unchecked';
  type: string;
  category: string;
  authorized_methods?: string[];
  modified_time: number;
  created_time: number;
}

export interface ToolAsRead {
  description: string;
  configs: Record<string, unknown> & { version: number; name?: string; _id?: string };
  status: 'checked' | 'unchecked';
  modified_time: number;
  created_time: number;
}

export interface WorkflowSummary {
  workflow_name: string;
  workflow_version: number;
  workflow_id: string;
  description: string;
  status: 'checked' | 'unchecked';
  type?: string;
  authorized_methods?: string[];
  modified_time: number;
  created_time: number;
}

export interface WorkflowAsRead {
  version: number;
  description: string;
  status: 'checked' | 'unchecked';
  configs: { nodelist?: WorkflowNode[] };
}

export interface WorkflowNode {
  node_id: string;
  app_id?: string;
  name?: string;
  alias?: string;
  parameters?: Record<string, { value?: unknown; variable?: boolean }> | null;
  [key: string]: unknown;
}

export interface GraphNode {
  node_id: string;
  kind: 'load' | 'tool' | 'store';
  name: string;
  alias: string;
  app_id: string;
  tool?: { account: string; project: string; name: string; version: number; tool_id: string };
  inputs: string[];
  outputs: string[];
  depth: number;
}

export interface GraphEdge {
  enid: string;
  from: string;
  from_port: string;
  to: string;
  to_port: string;
  formats: string[];
}

export interface GraphView {
  workflow_name: string;
  workflow_version: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface TemplateParameter {
  variable: boolean;
  required: boolean;
  type: string;
  value: unknown;
  hint?: string;
  minvalue?: number;
  maxvalue?: number;
}

export interface DataEntry {
  name: string;
  enid?: string;
  description?: string;
  property?: unknown;
  [key: string]: unknown;
}

export interface RunTemplate {
  name: string | null;
  description: string;
  Inputs: Record<
    string,
    { alias?: string; category?: string; type?: string; required: boolean; minitems: number; maxitems: number; formats: string[]; data: DataEntry[] }
  >;
  Outputs: Record<string, { alias?: string; type?: string; minitems: number; maxitems: number; formats: string[]; data: DataEntry[] }>;
  Parameters: Record<string, { alias?: string; parameters: Record<string, TemplateParameter> }>;
  [key: string]: unknown;
}

export type TaskStatus = 'scheduled' | 'queued' | 'running' | 'stopping' | 'succeeded' | 'failed' | 'stopped';
export type JobStatus = 'waiting' | 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface Task {
  task_id: string;
  task_name: string;
  status: TaskStatus;
  reason: string;
  workflow_name: string;
  workflow_version: number;
  user_name: string;
  description: string;
  createTime: number | null;
  startTime: number | null;
  endTime: number | null;
  scheduleTime: number | null;
  stop_requested?: boolean;
  progress: { done: number; total: number; running: number; failed: number; percent: number };
}

export interface TaskList {
  task_list: Task[];
  count: number;
  /** null for a filtered list of more than total_more_than tasks (docs/api.md, "Paging"). */
  total: number | null;
  total_more_than?: number;
  next_cursor?: string | null;
}

export interface Job {
  job_id: string;
  task_id: string;
  name: string;
  node_id: string;
  alias: string;
  status: JobStatus;
  reason: string;
  exit_code: number | null;
  attempt: number;
  cpu: number;
  mem: string;
  startTime: number | null;
  endTime: number | null;
  image_digest?: string | null;
  external_id?: string | null;
  /** The job whose outputs this one reused from the call cache; null when it ran. */
  cached_from?: string | null;
  attempts?: JobAttempt[];
  /** What a job that has not started waits for ("waiting for 2 CPUs (1 free)"); null once it runs. */
  waiting_for?: string | null;
  /** The node ids of the jobs it waits for. */
  upstream?: string[];
  /** The node id of the job whose expansion added it as the task ran (a CWL scatter's, a subworkflow's); else null. */
  parent?: string | null;
}

/** One ended attempt of a job (docs/tasks.md, "Retries"). */
export interface JobAttempt {
  attempt: number;
  outcome: string;
  exit_code: number | null;
  reason: string;
  mem: string;
  peak_rss_bytes: number | null;
  startTime: number | null;
  endTime: number | null;
}

export interface JobInfo extends Job {
  cmd: string;
  Log_downloadURL: string;
}

export interface DataItem {
  name: string;
  size: number;
  modified_time: number;
  /** The task and job that produced the item, while it is what that task stored (docs/data.md, "Provenance"). */
  produced_by?: ProducedBy | null;
}

export interface ProducedBy {
  task_id: string;
  task_name: string;
  /** null: the task was deleted. */
  task_status: TaskStatus | null;
  partial: boolean;
  node_id: string | null;
  job_id: string | null;
  store_node_id: string;
  store_job_id: string;
  stored_time: number;
}

export type OutputState = 'stored' | 'pending' | 'not_stored' | 'replaced' | 'missing';

/** One item of GET tasks/<id>/outputs/ (docs/tasks.md, "Outputs"). */
export interface TaskOutput {
  name: string;
  description: string;
  state: OutputState;
  partial: boolean;
  size: number | null;
  modified_time: number | null;
  node_id: string | null;
  job_id: string | null;
  output: string | null;
  store_node_id: string;
  store_job_id: string;
}

export interface TaskOutputs {
  task_id: string;
  task_name: string;
  status: TaskStatus;
  partial: boolean;
  outputs: TaskOutput[];
  count: number;
}

export const TERMINAL_TASK: readonly TaskStatus[] = ['succeeded', 'failed', 'stopped'];
export const TASK_STATES: readonly TaskStatus[] = ['scheduled', 'queued', 'running', 'stopping', 'succeeded', 'failed', 'stopped'];
