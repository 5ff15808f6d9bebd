/**
 * What the store keeps of WDL (migration 0013; docs/wdl.md, "The wdl/ routes"): workflows and tools, each with
 * versions that hold the document as uploaded, and which tasks run them. Store.wdl is this interface; the Kysely
 * implementation is wdl-store.ts, run by the contract suite on SQLite and PostgreSQL.
 */
import type { AuditEntry } from './interface/audit.js';

type Json = Record<string, unknown>;

/** A WDL workflow, or a WDL tool (a document of tasks the `wdl/tools/` routes keep): the same rows, told apart. */
export type WdlKind = 'workflow' | 'tool';

/** A version's document: the main `.wdl` and the optional zip of its imports, as uploaded, and its input template. */
export interface WdlContent {
  description: string;
  sourceName: string;
  source: string;
  dependenciesName: string | null;
  dependencies: Buffer | null;
  /** The input template read from the document when it was checked (what `inputs` answers). */
  inputs: Json;
}

/** One version, without its files. */
export interface WdlVersion {
  /** The version's own id (its download links name it). */
  versionId: string;
  /** The workflow's id, which the clients address every version by. */
  workflowId: string;
  projectId: string;
  kind: WdlKind;
  name: string;
  version: number;
  description: string;
  sourceName: string;
  dependenciesName: string | null;
  inputs: Json;
  createdAt: number;
  modifiedAt: number;
}

/** One version with its files. */
export interface WdlVersionFiles extends WdlVersion {
  source: string;
  dependencies: Buffer | null;
}

/** A change of a workflow (PUT wdl/workflow/<id>/): a new name, and a version replaced or added, in one transaction. */
export interface WdlChange {
  /** Rename the workflow (every version); AlreadyExists when the name is taken. */
  name?: string;
  /** Replace this version's content (it must exist: else nothing is written and the answer is undefined). */
  replace?: { version: number; content: Partial<WdlContent> };
  /** Add a version: this number (VersionConflict when taken) or the next free one. */
  add?: { version: number | 'next'; content: WdlContent };
}

/** What a WDL task records besides the task itself. */
export interface WdlTaskLink {
  workflowId: string;
  version: number;
  /** The task a restart was made from (its `wdl/tasks/?source_id=` list), or null. */
  sourceId: string | null;
  /** What the task was asked to run (inputs, output_dir, ...), which a restart asks again. */
  request: Json;
}

export interface WdlStore {
  /** A new workflow with its version 1; AlreadyExists when the project has one of the kind and name. */
  createWdlWorkflow(projectId: string, kind: WdlKind, name: string, content: WdlContent, audit?: AuditEntry): Promise<WdlVersion>;
  /** Rename, replace or add (WdlChange) atomically; the version replaced or added, or undefined when the workflow or the version is gone. */
  changeWdlWorkflow(workflowId: string, change: WdlChange, audit?: AuditEntry): Promise<WdlVersion | undefined>;
  /** Every version of a workflow, oldest first (none: the workflow does not exist). */
  wdlVersions(workflowId: string): Promise<WdlVersion[]>;
  /** Every version of the workflow of this project, kind and name, oldest first. */
  wdlVersionsByName(projectId: string, kind: WdlKind, name: string): Promise<WdlVersion[]>;
  /** A version with its files, by the version's own id. */
  wdlVersionFiles(versionId: string): Promise<WdlVersionFiles | undefined>;
  /** Every version of every workflow of the project and kind, by name then version. */
  listWdlVersions(projectId: string, kind: WdlKind): Promise<WdlVersion[]>;
  /** Delete a version (the workflow with its last one); whether it existed. */
  deleteWdlVersion(workflowId: string, version: number, audit?: AuditEntry): Promise<boolean>;
  /** Record that a task (of the project) runs a WDL version; once (a second record of the task changes nothing). */
  recordWdlTask(taskId: string, projectId: string, createdAt: number, link: WdlTaskLink): Promise<void>;
  /** What a task records of its WDL version, or undefined for a task that is not a WDL task. */
  wdlTask(taskId: string): Promise<WdlTaskLink | undefined>;
  /** The tasks restarted from `sourceId` (not being deleted), newest first. */
  wdlSubTasks(projectId: string, sourceId: string): Promise<string[]>;
}
