/**
 * The shapes the gdflow / GeneDock API sends and receives (INTERFACE.md §2, docs/wire.md §2 and §4).
 * Field names are the wire's own. Objects keep an index signature where the server may add
 * members, so that reading a field the types do not list still type-checks as `unknown`.
 */

import type { FromSchema } from 'json-schema-to-ts';
import type { callerIdentity, dataItem, dataList, dataPutResult } from '../contract/data.js';
import type { activatedTask, job, jobCacheExplanation, jobInfo, task, taskEvent, taskList, taskOutput, taskOutputs, taskProgress } from '../contract/tasks.js';
import type { createToolBody, toolDefinition } from '../contract/tools.js';
import type { createWorkflowBody } from '../contract/workflows.js';
import type { importCwlBody, importedCwl } from '../contract/cwl.js';
import type { runWdlBody, wdlRun } from '../contract/wdl.js';

// The request bodies, the tool definition, the task and job states and ActivateWorkflow's answer are derived from
// the server's own schemas (src/contract/); the read shapes below are written out where they say more than those.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** 2.1: one version of a tool as listed. */
export interface ToolSummary {
  tool_url: string;
  tool_name: string;
  tool_version: number;
  tool_id: string;
  description: string;
  status: 'checked' | 'unchecked';
  type: string;
  category: string;
  authorized_methods: string[];
  modified_time: number;
  created_time: number;
  [key: string]: unknown;
}

/** 4.4 ListTool: one group per tool name, one summary per version. */
export interface ToolList {
  items: ToolSummary[][];
  tool_url: string;
}

/** 2.2: a tool definition, as sent in PutTool (read-only members may be present when read). */
export type ToolDefinition = FromSchema<typeof toolDefinition>;

/** 2.2 as read: the definition plus `_id`, `version`, `account`, `status`, ... */
export interface ToolConfigsAsRead extends ToolDefinition {
  _id: string;
  version: number;
  account: string;
  status: string;
  type: string;
}

/** One element of GetTool's `tools`. */
export interface ToolAsRead {
  description: string;
  configs: ToolConfigsAsRead;
  status: 'checked' | 'unchecked';
  modified_time: number;
  created_time: number;
}

/** 2.4: GetToolParameterTemplate element. */
export interface ToolParameterTemplate {
  account: string;
  alias: string;
  app_id: string;
  category: string;
  description: string;
  name: string;
  version: number;
  inputs: Record<string, Array<{ enid: string }>>;
  outputs: Record<string, Array<{ enid: string }>>;
  parameters: Record<string, { variable: boolean; type: string; value: unknown }>;
  [key: string]: unknown;
}

/** 2.3: GetToolDetails element. */
export interface ToolDetails {
  tool_name: string;
  modified_time: number;
  details: Record<string, unknown>;
}

export type CreateToolRequest = FromSchema<typeof createToolBody>;

export interface PutToolRequest {
  tool_version: number;
  description?: string;
  configs: ToolDefinition;
}

/** 2.5: one version of a workflow as listed. */
export interface WorkflowSummary {
  workflow_url: string;
  workflow_name: string;
  workflow_version: number;
  workflow_id: string;
  description: string;
  status: 'checked' | 'unchecked';
  authorized_methods?: string[];
  modified_time?: number;
  created_time?: number;
  [key: string]: unknown;
}

export interface WorkflowList {
  workflow_url: string;
  items: WorkflowSummary[][];
}

/** 2.7: one node of a workflow configuration. */
export interface WorkflowNode {
  node_id: string;
  app_id: string;
  name?: string;
  alias?: string;
  inputs?: Record<string, Array<{ enid: string }> | { enid: string }> | null;
  outputs?: Record<string, Array<{ enid: string }> | { enid: string }> | null;
  parameters?: Record<string, { variable?: boolean; value?: unknown }> | null;
  [key: string]: unknown;
}

export interface WorkflowConfigs {
  nodelist: WorkflowNode[];
  [key: string]: unknown;
}

/** 2.6: one version of a workflow as read. */
export interface WorkflowAsRead {
  version: number;
  description: string;
  status: 'checked' | 'unchecked';
  configs: WorkflowConfigs;
  workflow_id?: string;
  modified_time?: number;
  created_time?: number;
}

export type CreateWorkflowRequest = FromSchema<typeof createWorkflowBody>;

export interface PutWorkflowRequest {
  workflow_version: number;
  description?: string;
  configs: WorkflowConfigs;
}

/** The graph view of a validated workflow version (`workflows/<name>/graph/`). */
export interface WorkflowGraph {
  workflow_name: string;
  workflow_version: number;
  workflow_id: string;
  nodes: Array<{
    node_id: string;
    kind: 'load' | 'store' | 'tool';
    name: string;
    alias: string;
    app_id: string;
    tool?: { account: string; project: string; name: string; version: number; tool_id: string };
    inputs: string[];
    outputs: string[];
    depth: number;
  }>;
  edges: Array<{ enid: string; from: string; from_port: string; to: string; to_port: string; formats: string[] | null }>;
}

/**
 * A CWL document as gdflow exports a tool or workflow version (`tools/<name>/cwl/`, `workflows/<name>/cwl/`): CWL v1.2
 * for one written in GeneDock's format; for one imported from CWL, the packed document it was imported from (one
 * process, or a `$graph`).
 */
export interface CwlDocument {
  cwlVersion: 'v1.0' | 'v1.1' | 'v1.2';
  class?: 'CommandLineTool' | 'Workflow' | 'ExpressionTool' | 'Operation';
  $graph?: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

/** `POST cwl/import/` (docs/cwl.md, "Import"). */
export type CwlImportRequest = FromSchema<typeof importCwlBody>;
/** The versions an import made (or found already there). */
export type CwlImported = FromSchema<typeof importedCwl>;

/**
 * `POST cwl/runs/` (docs/cwl.md, "Running CWL"): a packed CWL document, the process to run in it, and the job
 * object, its Files and Directories at `gdflow:` locations (items of the account's data store).
 */
export interface CwlRunRequest {
  document: Record<string, unknown>;
  /** The process to run: `#main`, or another id of the document; default its main process. */
  process?: string;
  job: Record<string, unknown>;
  name?: string;
}

export interface CwlRunStarted {
  task_id: string;
  task_name: string;
}

/** `GET cwl/runs/<task>/`: the run's task status, its CWL output object once it succeeded, why it failed. */
export interface CwlRun {
  task_id: string;
  task_name: string;
  status: string;
  outputs: Record<string, unknown> | null;
  reason: string | null;
}

export interface RunInputData {
  name: string;
  enid?: string | null;
  property?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface RunOutputData {
  name: string;
  description?: string;
  property?: Record<string, unknown>;
  [key: string]: unknown;
}

/** 2.8: run parameters (the executable workflow template, and ActivateWorkflow's `parameters`). */
export interface RunParameters {
  name?: string | null;
  description?: string | null;
  Inputs?: Record<string, { data?: RunInputData[]; formats?: string[]; required?: boolean; minitems?: number; maxitems?: number; [key: string]: unknown }>;
  Outputs?: Record<string, { data?: RunOutputData[]; formats?: string[]; [key: string]: unknown }>;
  Parameters?: Record<string, { alias?: string; parameters?: Record<string, { value?: unknown; variable?: boolean; [key: string]: unknown }> }>;
  Property?: Record<string, unknown>;
  Conditions?: { schedule?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** 4.15 ActivateWorkflow body. */
export interface ActivateWorkflowRequest {
  workflow_name: string;
  /** Omitted: the latest checked version. */
  workflow_version?: number;
  workflow_owner?: string;
  task_name?: string;
  parameters?: RunParameters;
}

export type ActivatedTask = FromSchema<typeof activatedTask>;

export type TaskStatus = (typeof task.properties.status.enum)[number];
export type JobStatus = (typeof job.properties.status.enum)[number];

export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['succeeded', 'failed', 'stopped'];
export const isTerminalTask = (status: string): boolean => (TERMINAL_TASK_STATUSES as readonly string[]).includes(status);

export type TaskProgress = FromSchema<typeof taskProgress>;

/** The task object (docs/wire.md §4); times are unix seconds, null while unknown. */
export type Task = FromSchema<typeof task>;

export type TaskList = FromSchema<typeof taskList>;

export interface ListTasksQuery {
  /** Unix seconds: tasks created at or after. */
  from?: number;
  /** Unix seconds: tasks created at or before. */
  to?: number;
  /** Page size, 1..1000 (server default 100). */
  size?: number;
  offset?: number;
  /** The `next_cursor` of the previous page: pages by keyset, as fast deep in the list as at its start. */
  cursor?: string;
  /** Only tasks in this state, or in one of several separated by commas (`running,queued`). */
  status?: string;
  /** Only tasks whose name contains this text (ASCII letters in either case). */
  name?: string;
}

export type Job = FromSchema<typeof job>;

export type JobInfo = FromSchema<typeof jobInfo>;
/** GET .../jobs/<job>/explain/: why a job was or was not a call-cache hit. */
export type JobCacheExplanation = FromSchema<typeof jobCacheExplanation>;

export type TaskEvent = FromSchema<typeof taskEvent>;

/** GET .../tasks/<task>/outputs/: what a task stored, or is to store (docs/tasks.md, "Outputs"). */
export type TaskOutputs = FromSchema<typeof taskOutputs>;
export type TaskOutput = FromSchema<typeof taskOutput>;

export type DataItem = FromSchema<typeof dataItem>;

export type DataList = FromSchema<typeof dataList>;

export type DataPutResult = FromSchema<typeof dataPutResult>;

/** GET /miscellaneous/credentials/: who the signing key belongs to. */
export type CallerIdentity = FromSchema<typeof callerIdentity>;

/** `POST wdl/runs/`: a WDL document (with its imports' texts) and its input JSON, File values data-store paths. */
export type WdlRunRequest = FromSchema<typeof runWdlBody>;
/** `GET wdl/runs/<task>/`: the run's task status, its outputs once it succeeded (Files as data-store paths), why it failed. */
export type WdlRun = FromSchema<typeof wdlRun>;
