/**
 * The store interface: everything the domain and the engine persist goes through it. There is
 * one implementation over Kysely (kysely-store.ts with definition-store.ts) that runs on SQLite
 * (sqlite.ts) and on PostgreSQL (postgres.ts), with a read cache in front (cached-store.ts); the
 * contract suite in test/store/ runs against every backend.
 */

import type { JobStatus, TaskStatus } from '../contract/states.js';

export type { JobStatus, TaskStatus };

export type Visibility = 'public' | 'private' | 'system';
export type DefinitionStatus = 'checked' | 'unchecked';
export type Json = Record<string, unknown>;

export interface Account {
  id: string;
  name: string;
  createdAt: number;
}

export interface Project {
  id: string;
  accountId: string;
  accountName: string;
  name: string;
  createdAt: number;
}

export interface AccessKey {
  id: string;
  secret: string;
  accountId: string;
  accountName: string;
  userName: string;
  status: 'active' | 'revoked';
  createdAt: number;
}

/** One version of a tool. */
export interface Tool {
  id: string;
  projectId: string;
  accountName: string;
  projectName: string;
  name: string;
  version: number;
  description: string;
  status: DefinitionStatus;
  visibility: Visibility;
  category: string;
  /** The definition as put (INTERFACE.md 2.2), or null before the first valid PutTool. */
  configs: Json | null;
  /** A version imported from CWL: `{document, process}`, the packed document and its process (docs/cwl.md, "Import"). */
  cwl: Json | null;
  createdAt: number;
  modifiedAt: number;
}

/** One version of a workflow. */
export interface Workflow {
  id: string;
  projectId: string;
  accountName: string;
  projectName: string;
  name: string;
  version: number;
  description: string;
  status: DefinitionStatus;
  visibility: Visibility;
  configs: Json | null;
  /** A version imported from CWL: `{document, process}`, the packed document and its process (docs/cwl.md, "Import"). */
  cwl: Json | null;
  /** Saved run-parameter defaults (docs/wire.md §2 "set run template"), or null. */
  runTemplate: Json | null;
  createdAt: number;
  modifiedAt: number;
}

export interface NewVersion {
  projectId: string;
  name: string;
  description: string;
  visibility: Visibility;
  /** When given, the version the client expects to create; a mismatch throws VersionConflict. */
  expectedVersion?: number;
}

/** The next free version differs from the one the client asked for. */
export class VersionConflict extends Error {
  constructor(readonly nextVersion: number) {
    super(`the next version is ${nextVersion}`);
    this.name = 'VersionConflict';
  }
}

/** A row is referenced by another and cannot be deleted. */
export class InUse extends Error {
  constructor(readonly by: string[]) {
    super(`in use by ${by.join(', ')}`);
    this.name = 'InUse';
  }
}

/** A unique name is taken, or (`key` 'id') the id a new row was given. */
export class AlreadyExists extends Error {
  constructor(
    what: string,
    readonly key: 'name' | 'id' = 'name',
  ) {
    super(`${what} already exists`);
    this.name = 'AlreadyExists';
  }
}

/**
 * The store cannot serve the request now, though nothing is wrong with the request: the database is unreachable, or
 * stayed busy through every retry. The server answers 503 ServiceUnavailable; the same request may be sent again.
 */
export class StoreUnavailable extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'StoreUnavailable';
  }
}

export interface StoreCapabilities {
  /** Human name of the backend, for logs and `gdflow doctor`. */
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Whether rows can be locked with SELECT ... FOR UPDATE (PostgreSQL), or writes are serial anyway
   * (SQLite: every write transaction takes the database's write lock when it begins).
   */
  readonly rowLocks: boolean;
}

/*
 * Writes asked of the API or of `gdflow admin` take the audit entry that records them (AuditStore): it is written in
 * the write's own transaction, so the log holds exactly the writes that were committed.
 */
export interface AccountStore {
  createAccount(name: string): Promise<Account>;
  getAccount(name: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  createProject(accountId: string, name: string, audit?: AuditEntry): Promise<Project>;
  getProject(accountName: string, projectName: string): Promise<Project | undefined>;
  listProjects(accountId: string): Promise<Project[]>;
  createAccessKey(key: { id: string; secret: string; accountId: string; userName: string }, audit?: AuditEntry): Promise<AccessKey>;
  getAccessKey(id: string): Promise<AccessKey | undefined>;
  /** A cached key without waiting: null when known missing, undefined when not cached (stores without a cache omit it). */
  peekAccessKey?(id: string): AccessKey | null | undefined;
  /**
   * A number that changes whenever anything the store's read cache holds may have changed (every
   * write through it; others' writes as the cache notices them). Stores without a cache omit it.
   */
  cacheGeneration?(): number;
  listAccessKeys(accountId: string): Promise<AccessKey[]>;
  revokeAccessKey(id: string, audit?: AuditEntry): Promise<boolean>;
}

/**
 * A bearer token of the GA4GH APIs (docs/ga4gh.md, "Authentication"): made by `gdflow admin create-token`, it acts for
 * its account (in one project of it, or the default one) until it expires or is revoked. Only its secret's SHA-256 is kept.
 */
export interface AccessToken {
  id: string;
  secretSha256: string;
  accountId: string;
  accountName: string;
  projectName: string | null;
  userName: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface NewAccessToken {
  id: string;
  secretSha256: string;
  accountId: string;
  projectName: string | null;
  userName: string;
  expiresAt: number;
}

export interface TokenStore {
  createAccessToken(token: NewAccessToken, audit?: AuditEntry): Promise<AccessToken>;
  getAccessToken(id: string): Promise<AccessToken | undefined>;
  /** A cached token without waiting: null when known missing, undefined when not cached (stores without a cache omit it). */
  peekAccessToken?(id: string): AccessToken | null | undefined;
  listAccessTokens(accountId: string): Promise<AccessToken[]>;
  /** Returns whether a token that was not revoked yet is now. */
  revokeAccessToken(id: string, audit?: AuditEntry): Promise<boolean>;
}

export interface ToolUpdate {
  description?: string;
  configs: Json;
  category: string;
  status: DefinitionStatus;
  /** The CWL document of a version imported from CWL (absent: unchanged). */
  cwl?: Json;
}

export interface WorkflowUpdate {
  description?: string;
  configs: Json;
  status: DefinitionStatus;
  toolIds: string[];
  /** The CWL document of a version imported from CWL (absent: unchanged). */
  cwl?: Json;
}

export interface ToolStore {
  createTool(input: NewVersion, audit?: AuditEntry): Promise<Tool>;
  /**
   * Replace a tool version's definition. With `refuseIfPinned`, throws InUse (naming the workflows)
   * when a workflow version pins it, checked atomically with the write: a concurrent PutWorkflow
   * either pins it before (and the put is refused) or after.
   */
  putTool(id: string, update: ToolUpdate, options?: { refuseIfPinned?: boolean }, audit?: AuditEntry): Promise<void>;
  getTool(projectId: string, name: string, version: number): Promise<Tool | undefined>;
  getToolById(id: string): Promise<Tool | undefined>;
  getToolVersions(projectId: string, name: string): Promise<Tool[]>;
  /** Every version of every tool in the project, ordered by name then version. */
  listTools(projectId: string): Promise<Tool[]>;
  /** Throws InUse (naming the workflows) when a workflow version pins this tool version. */
  deleteTool(id: string, audit?: AuditEntry): Promise<void>;
}

export interface WorkflowStore {
  createWorkflow(input: NewVersion, audit?: AuditEntry): Promise<Workflow>;
  /** Replace the configuration and the pinned tool versions in one transaction. */
  putWorkflow(id: string, update: WorkflowUpdate, audit?: AuditEntry): Promise<void>;
  setRunTemplate(id: string, template: Json, audit?: AuditEntry): Promise<void>;
  getWorkflow(projectId: string, name: string, version: number): Promise<Workflow | undefined>;
  getWorkflowById(id: string): Promise<Workflow | undefined>;
  getWorkflowVersions(projectId: string, name: string): Promise<Workflow[]>;
  listWorkflows(projectId: string): Promise<Workflow[]>;
  /** Names of `account/project/workflow:version` that pin the tool version. */
  workflowsUsingTool(toolId: string): Promise<string[]>;
  deleteWorkflow(id: string, audit?: AuditEntry): Promise<void>;
}

export interface Task {
  id: string;
  projectId: string;
  accountName: string;
  projectName: string;
  name: string;
  workflowId: string;
  workflowName: string;
  workflowVersion: number;
  userName: string;
  status: TaskStatus;
  reason: string;
  /** The run parameters as given (INTERFACE.md 2.8). */
  parameters: Json;
  /** What the engine runs: everything resolved at activation (domain/tasks/plan.ts). */
  plan: Json;
  scheduleAt: number | null;
  stopRequested: boolean;
  /** A DELETE is waiting for the worker that holds the task; the task is gone for readers. */
  deleteRequested: boolean;
  /** The worker whose lease on the task has not expired (by the database's clock), or null. */
  heldBy: string | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  modifiedAt: number;
}

export interface Job {
  id: string;
  taskId: string;
  nodeId: string;
  /** The node's tool name, or loaddata / storedata. */
  name: string;
  status: JobStatus;
  reason: string;
  command: string;
  spec: Json;
  attempt: number;
  exitCode: number | null;
  cpu: number;
  memMb: number;
  /** The executor's handle of a job that can outlive its worker (Slurm job id, container name), or null. */
  externalId: string | null;
  /** The digest of the container image the job's latest attempt ran in (sha256:...), or null. */
  imageDigest: string | null;
  startedAt: number | null;
  endedAt: number | null;
  modifiedAt: number;
  /** Every attempt that ended, oldest first (docs/tasks.md, "Retries"); `memMb` above is the next or current one's. */
  attempts: JobAttempt[];
  /** The job's call-cache key (docs/tasks.md, "Call caching"), once computed before it ran; else null. */
  cacheKey: string | null;
  /** What the key was made of, for `explain`; null with the key. */
  cacheParts: Json | null;
  /** The job whose outputs this one reused (a cache hit), or null when it ran. */
  cachedFrom: string | null;
  /** Whether the cache was looked up for it: hit, miss, off (its key was kept, but reuse was off); null: no key. */
  cacheLookup: 'hit' | 'miss' | 'off' | null;
  /**
   * The job's output files (relative to its working directory) with their size and modification time when it
   * succeeded: a cache hit on it needs them unchanged. Null before, and once its outputs were cleaned up.
   */
  outputStamps: Record<string, FileStamp> | null;
  /**
   * The job's outputs as a value (docs/tasks.md, "Deferred jobs"): a CWL output object whose Files have host
   * locations under the data root; null for jobs whose outputs are files only (GeneDock jobs) and until it ended.
   */
  outputs: Json | null;
}

/** One ended attempt of a job. */
export interface JobAttempt {
  attempt: number;
  /** The executor's outcome: succeeded, failed, out_of_memory, timed_out, killed, lost. */
  outcome: string;
  exitCode: number | null;
  reason: string;
  /** The memory the attempt was given (MiB; 0: no limit). */
  memMb: number;
  /** The highest resident memory sampled, when known. */
  peakRssBytes: number | null;
  startedAt: number | null;
  endedAt: number | null;
}

/** What tells that a file has not changed since: its size and modification time (what make and Snakemake trust too). */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

/** A file's content hash, with the stamp it was taken at: a file whose stamp changed is hashed again. */
export interface FileHash extends FileStamp {
  sha256: string;
}

export interface TaskEvent {
  taskId: string;
  jobId: string | null;
  from: string | null;
  to: string;
  reason: string;
  at: number;
}

export type NewTask = Omit<Task, 'accountName' | 'projectName' | 'modifiedAt' | 'startedAt' | 'endedAt' | 'deleteRequested' | 'heldBy'> & {
  /** A TES task (docs/ga4gh.md): its TES name and tags, which the TES list filters by. */
  tes?: { name: string; tags: Record<string, string> };
};

/** A page of a project's TES tasks (TaskStore.listTesTasks), newest first. */
export interface TesTaskQuery {
  limit: number;
  after?: { createdAt: number; id: string };
  /** Only tasks whose TES name starts with this (case-sensitive). */
  namePrefix?: string;
  /** Only tasks in one of these gdflow states. */
  statuses?: readonly TaskStatus[];
  /** Only tasks with every one of these tags; a tag without a value matches any value. */
  tags?: ReadonlyArray<{ key: string; value?: string }>;
}
export type NewJob = Omit<
  Job,
  | 'modifiedAt'
  | 'startedAt'
  | 'endedAt'
  | 'exitCode'
  | 'externalId'
  | 'imageDigest'
  | 'attempts'
  | 'cacheKey'
  | 'cacheParts'
  | 'cachedFrom'
  | 'cacheLookup'
  | 'outputStamps'
  | 'outputs'
> & {
  /**
   * A job that ends as it is created (a call-cache hit decided at activation, domain/tasks/cached-rerun.ts): what its
   * end records. Written with the row, with a task event for its state.
   */
  ended?: EndedJob;
};

/** What a job created ended records of its end. */
export type EndedJob = Pick<
  Job,
  'attempt' | 'exitCode' | 'startedAt' | 'endedAt' | 'attempts' | 'cacheKey' | 'cacheParts' | 'cachedFrom' | 'cacheLookup' | 'outputStamps'
>;
/** A job as the store has it once `job` is written: what the plan or an expansion did not decide starts empty. */
export function freshJob({ ended, ...job }: NewJob, modifiedAt: number): Job {
  const fresh: Job = {
    ...job,
    exitCode: null,
    externalId: null,
    imageDigest: null,
    startedAt: null,
    endedAt: null,
    modifiedAt,
    attempts: [],
    cacheKey: null,
    cacheParts: null,
    cachedFrom: null,
    cacheLookup: null,
    outputStamps: null,
    outputs: null,
  };
  return ended ? { ...fresh, ...ended } : fresh;
}

export type TaskPatch = Partial<Pick<Task, 'status' | 'reason' | 'startedAt' | 'endedAt' | 'stopRequested' | 'deleteRequested'>>;
export type JobPatch = Partial<
  Pick<
    Job,
    | 'status'
    | 'reason'
    | 'attempt'
    | 'exitCode'
    | 'startedAt'
    | 'endedAt'
    | 'command'
    | 'externalId'
    | 'imageDigest'
    | 'cpu'
    | 'memMb'
    | 'attempts'
    | 'cacheKey'
    | 'cacheParts'
    | 'cachedFrom'
    | 'cacheLookup'
    | 'outputStamps'
    | 'outputs'
    | 'spec'
  >
>;

export interface StateChanges {
  /** Jobs added to held tasks at run time (a deferred job's expansion), inserted before the changes below. */
  newJobs?: NewJob[];
  tasks?: Array<{ id: string; patch: TaskPatch; expect?: readonly TaskStatus[] }>;
  jobs?: Array<{ id: string; taskId: string; patch: JobPatch; expect?: readonly JobStatus[] }>;
  /** Data items the tasks' store steps put in the data store: their provenance replaces any earlier one of the name. */
  stored?: DataProvenance[];
  /**
   * Write only the changes of tasks (and of their jobs) that this worker holds a live lease on; the others are
   * left alone and reported as lost (another worker has taken them over, or they were deleted).
   */
  owner?: string;
  /** After the changes, give up these tasks' leases (a finished task, a worker shutting down). */
  release?: string[];
  /**
   * Commit without waiting for the disk: the changes survive a crash of the server process but the last ones may
   * be lost when the machine itself goes down. For state the engine can re-derive (docs/tasks.md, "Recovery").
   */
  relaxed?: boolean;
}

export interface AppliedChanges {
  /** Tasks of the changes (with `owner`) whose lease that owner no longer holds: nothing of theirs was written. */
  lost: string[];
}

/** What a worker learns about the tasks it holds between scheduling passes. */
export interface HeldTaskFlags {
  id: string;
  stopRequested: boolean;
  deleteRequested: boolean;
}

/**
 * Work is claimed through the store (docs/operating.md, "Workers"): a worker holds a task while its lease lives,
 * renews it by heartbeat, and writes the task's state only while it holds it. Lease times are the database's
 * clock, so workers on different machines need no clock agreement.
 */
export interface WorkStore {
  /**
   * Take up to `limit` tasks nobody holds (unfinished, unowned or with an expired lease, due to start), oldest
   * first, for `owner` with a lease of `ttlSeconds`. Two workers never get the same task.
   */
  claimTasks(owner: string, limit: number, ttlSeconds: number): Promise<Task[]>;
  /** Extend the leases of every task `owner` holds; returns the ids it still holds. */
  renewLeases(owner: string, ttlSeconds: number): Promise<string[]>;
  /** Give up leases (the tasks become claimable at once). */
  releaseTasks(owner: string, taskIds: string[]): Promise<void>;
  /** The tasks `owner` holds that someone asked to stop or delete. */
  requestedTasks(owner: string): Promise<HeldTaskFlags[]>;
  /** Read a task and, where the backend has row locks, lock it until the end of the transaction. */
  lockTask(id: string): Promise<Task | undefined>;
  /** The workers that hold live leases. */
  leaseHolders(): Promise<string[]>;
  /** End the leases of a worker known to be dead, so that its tasks are taken over now rather than at expiry. */
  expireLeases(owner: string): Promise<void>;
}

export interface TaskRange {
  from?: number;
  to?: number;
  limit: number;
  offset?: number;
  after?: { createdAt: number; id: string };
  /** Only tasks in one of these states. */
  statuses?: readonly TaskStatus[];
  /** Only tasks whose name contains this text (case-insensitive for ASCII letters). */
  nameContains?: string;
  /**
   * Count the range only up to this many tasks; when more match, `total` is undefined. A count reads every task it
   * counts: an open-ended one grows with the project, a capped one costs what a page does.
   */
  countUpTo?: number;
}

/** One page of a task list. */
export interface TaskPage {
  tasks: Task[];
  /** How many tasks the whole range holds (every page of it, not only those after the cursor); undefined past `countUpTo`. */
  total: number | undefined;
  /** Whether a task follows the last one of this page. */
  more: boolean;
}

export interface TaskStore {
  /** Insert a task with all its jobs at once; AlreadyExists when the name is taken in the project (key 'name') or the id is (key 'id'). */
  createTask(task: NewTask, jobs: NewJob[], audit?: AuditEntry): Promise<void>;
  getTask(id: string): Promise<Task | undefined>;
  /**
   * Newest first (created_at, then id, both descending); `from`/`to` bound created_at in whole seconds (inclusive).
   * A page starts after the task `after` (a keyset cursor: as fast for the oldest page as for the newest) or skips
   * `offset` tasks.
   */
  listTasks(projectId: string, range: TaskRange): Promise<TaskPage>;
  /**
   * Change a task; when `expect` is given, only if its status is one of those (compare and set).
   * A status change is recorded as a task event. Returns whether the task was changed.
   */
  updateTask(id: string, patch: TaskPatch, expect?: readonly TaskStatus[]): Promise<boolean>;
  /** Delete a task with its jobs and events; with `owner`, only while that worker holds it. Returns whether it was deleted. */
  deleteTask(id: string, owner?: string): Promise<boolean>;
  /** A page of the project's TES tasks (tasks being deleted left out); `more` says whether a task follows the last. */
  listTesTasks(projectId: string, query: TesTaskQuery): Promise<{ tasks: Task[]; more: boolean }>;
  listJobs(taskId: string): Promise<Job[]>;
  /** How many jobs of each task are in each state (cheap: no job documents are read). */
  jobStatusCounts(taskIds: string[]): Promise<Map<string, Partial<Record<JobStatus, number>>>>;
  getJob(id: string): Promise<Job | undefined>;
  updateJob(id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean>;
  /** Many task and job changes in one transaction: one commit for everything a scheduling pass decided. */
  applyChanges(changes: StateChanges): Promise<AppliedChanges>;
  taskEvents(taskId: string): Promise<TaskEvent[]>;
  /**
   * How many tasks are in each state (tasks being deleted left out), and how many jobs of unfinished tasks are in
   * each state, in one query: what the metrics show (docs/operating.md, "Metrics"). Jobs of ended tasks are not
   * counted, so that the cost follows the backlog, not the history.
   */
  stateCounts(): Promise<{ tasks: Partial<Record<TaskStatus, number>>; jobs: Partial<Record<JobStatus, number>> }>;
}

/** One write asked of the API or of `gdflow admin`, made or refused (docs/operating.md, "Audit log"). */
export interface AuditEntry {
  /** The request's id (`x-gd-requestid`), or the id `gdflow admin` made up for its command. */
  requestId: string;
  /** Who: the account and access key that signed the request; null for `gdflow admin` (the operator). */
  actorAccount: string | null;
  actorKeyId: string | null;
  /** The key's user name, or the operating-system user who ran `gdflow admin`. */
  actorUser: string;
  /** The account whose resource the write is about. */
  account: string;
  /** What: CreateTool, PutWorkflow, StopTask, PutData, CreateKey, ... */
  operation: string;
  /** The resource: `account/project/tool:version`, a task id, `account:/path`, a key id, or the request path of a refusal. */
  target: string;
  /** 'ok', or the error code the write was refused with. */
  outcome: string;
  /** Why it was refused (empty when it was made). */
  reason: string;
  /** The client's address as the server saw it (behind a trusted proxy, the one it forwarded); none for `gdflow admin`. */
  clientAddress?: string | null;
}

export interface AuditRecord extends AuditEntry {
  id: number;
  clientAddress: string | null;
  /** Seconds since the epoch (the writing process's clock). */
  at: number;
}

export interface AuditQuery {
  /** Entries whose actor or subject is this account. */
  account?: string;
  /** Entries at or after this time (seconds since the epoch). */
  since?: number;
  /** At most this many, the newest kept (default 1000). */
  limit?: number;
}

export interface AuditStore {
  /** Add an entry; inside a transaction, it commits (or not) with the write it records. */
  recordAudit(entry: AuditEntry): Promise<void>;
  /** Entries oldest first. */
  listAudit(query: AuditQuery): Promise<AuditRecord[]>;
}

/**
 * What call caching keeps (docs/tasks.md, "Call caching"): jobs by their cache key, and the content hashes of
 * stored data items, taken once per item and kept while its size and modification time stay the same.
 */
export interface CallCacheStore {
  /** Succeeded jobs of the account's tasks (not being deleted) with this key, newest first. */
  findCachedJobs(accountName: string, cacheKey: string, limit: number): Promise<Job[]>;
  /**
   * findCachedJobs for many keys in one query: the succeeded jobs of the account's tasks with any of these keys,
   * newest first, at most `limitPerKey` of each key.
   */
  findCachedJobsByKeys(accountName: string, cacheKeys: readonly string[], limitPerKey: number): Promise<Job[]>;
  /** Jobs of the account's tasks that ran this tool and recorded a cache key, newest first (for explain). */
  keyedJobsOfTool(accountName: string, toolName: string, limit: number): Promise<Job[]>;
  getContentHash(accountName: string, path: string): Promise<FileHash | undefined>;
  putContentHash(accountName: string, path: string, hash: FileHash): Promise<void>;
}

/**
 * Where a stored data item came from (docs/data.md, "Provenance"): the task, the job that wrote the file and the store
 * step that copied it, with the item's size and modification time as it was stored. It stands for the item only
 * while the item still has them (an upload over the item or its deletion writes nothing here).
 */
export interface DataProvenance {
  account: string;
  /** The item's path in the account (`/results/x.bam`). */
  path: string;
  taskId: string;
  taskName: string;
  /** The job that wrote the file and its node; null when not known. */
  jobId: string | null;
  nodeId: string | null;
  storeJobId: string;
  storeNodeId: string;
  size: number;
  mtimeMs: number;
  /** Seconds since the epoch. */
  storedAt: number;
}

export interface DataProvenanceStore {
  /**
   * The recorded provenance of these items of an account (those that have one, in no particular order), each with
   * its task's status now: null when the task was deleted. The caller compares the stamps with the items'.
   */
  getProvenance(account: string, paths: string[]): Promise<Array<DataProvenance & { taskStatus: TaskStatus | null }>>;
}

export interface SettingsStore {
  getSetting(key: string): Promise<string | undefined>;
  /** Set the value unless one exists; returns the value that is stored (first writer wins). */
  initSetting(key: string, value: string): Promise<string>;
}

/** Something for workers to act on now (a new task, a stop or delete request). */
export interface WorkEvent {
  kind: 'task' | 'stop' | 'delete';
  taskId: string;
}

/**
 * Wake-ups between processes: PostgreSQL delivers them to every replica (LISTEN/NOTIFY); on SQLite they reach
 * this process only, and workers elsewhere find the work by polling. A lost event only delays work: workers
 * always poll as well.
 */
export interface WorkEvents {
  /** Whether other processes hear what this one publishes. */
  readonly crossProcess: boolean;
  publish(event: WorkEvent): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (event: WorkEvent) => void): () => void;
}

export interface Store
  extends AccountStore, TokenStore, ToolStore, WorkflowStore, TaskStore, WorkStore, SettingsStore, AuditStore, CallCacheStore, DataProvenanceStore {
  readonly capabilities: StoreCapabilities;
  readonly events: WorkEvents;
  /** Run `fn` in one transaction; everything it does through the given store commits or none of it. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
