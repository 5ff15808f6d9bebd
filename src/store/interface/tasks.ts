/** The store's records of tasks and jobs, and the parts of the Store interface that keep and claim them. */

import type { JobStatus, TaskStatus } from '../../contract/states.js';
import type { AuditEntry } from './audit.js';
import type { Json } from './definitions.js';
import type { DataProvenance } from './provenance.js';

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
  /**
   * A task that succeeds as it is created (every job a call-cache hit decided at activation): created in its `status`,
   * then succeeded at `at` with `reason`, both transitions recorded as task events, in the same transaction.
   */
  ended?: { reason: string; at: number };
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

/** A job that reuses another (TaskStore.jobsReusing): where its files are, and the job it reuses. */
export type ReusingJob = Pick<Job, 'id' | 'taskId' | 'nodeId' | 'cachedFrom'>;

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
  /**
   * The jobs of other tasks that reuse a job of this task (their cached_from names it): what must be handed their own
   * copy of what they read from it before this task's files go (engine/job-logs.ts, handOver).
   */
  jobsReusing(taskId: string): Promise<ReusingJob[]>;
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
