import type { Job, Json, Task } from '../../../store/store.js';
import type { CacheParts } from '../../cache/key.js';
import type { RetryPolicy } from '../../tools/retry-policy.js';
import type { JobSpec } from '../job-spec.js';
import type { StoredItem } from '../outputs.js';

/**
 * What the rules read: a task with its jobs as plain data, and what the worker asking knows of itself. The engine's
 * LiveTask and LiveJob are these (with indexes it keeps as jobs change); the API builds them from the store's rows;
 * tests write them by hand. The rules never change them: they return what is to change (decision.ts).
 */

/** A job as the rules see it: its row, its spec, and where it stands among the task's other jobs. */
export interface JobState {
  readonly job: Readonly<Job>;
  readonly spec: JobSpec;
  /** The jobs that list this one among their deps, and the deferred job whose expansion added it (job-spec.ts, upstreamOf). */
  readonly dependents: readonly JobState[];
  /**
   * How many of its deps (and, for a deferred job that expanded, of the jobs it added) are not yet in a state that
   * lets it go on (states.ts, UNBLOCKING_JOB_STATES).
   */
  readonly waitingOn: number;
}

/** A task as the rules see it. */
export interface TaskState {
  readonly task: Readonly<Task>;
  /** Its jobs, in the plan's order. */
  readonly jobs: readonly JobState[];
  readonly byId: ReadonlyMap<string, JobState>;
  /** The first of its jobs found failed, if any. */
  readonly failed: JobState | undefined;
  /** Whether every one of its jobs has succeeded (or is in another state that lets the jobs after it run). */
  readonly allSucceeded: boolean;
}

/** A task with its jobs' rows only: what stopping it needs (the API has no more of a task no worker holds). */
export interface TaskRows {
  readonly task: Readonly<Task>;
  readonly jobs: readonly { readonly job: Readonly<Job> }[];
}

/** The jobs whose process (or cache lookup, or start) runs on the worker asking, by job id. */
export interface RunningHere {
  has(jobId: string): boolean;
}

/** Nothing runs here: an API process, which runs no jobs. */
export const NOTHING_RUNS_HERE: RunningHere = { has: () => false };

/** What the rules know of the worker asking: what runs on it, and its settings. */
export interface WorkerView {
  readonly running: RunningHere;
  /** The retry policy of tools that have none. */
  readonly retry: RetryPolicy;
  /** The most memory a job can be given here (MiB): an out-of-memory retry grows up to it. */
  readonly memoryMb: number;
  /** How many times a job may be found running by a new owner (its worker died) before it is failed. */
  readonly maxRestarts: number;
  /** Whether a task that succeeded loses its intermediate outputs, when the task does not say. */
  readonly cleanupIntermediates: boolean;
  /** Whether this worker's executor can follow a job an earlier owner started (a container, a Slurm job). */
  readonly adopts: boolean;
}

/** How an attempt ended, as the executor tells it. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'out_of_memory' | 'killed' | 'timed_out' | 'lost';

/** What the rules need of an ended run of a job (the engine's RunResult is one). */
export interface AttemptResult {
  outcome: AttemptOutcome;
  exitCode: number | null;
  reason: string;
  startedAt: number;
  endedAt: number;
  peakRssBytes?: number;
  /** The job's call-cache key and what it was made of, when one was computed. */
  cacheKey?: string;
  cacheParts?: CacheParts;
  /** The job whose outputs this one reused (a cache hit). */
  cachedFrom?: string;
  cacheLookup?: 'hit' | 'miss' | 'off';
  /** The stamps of the outputs of a succeeded job that has a key. */
  outputStamps?: Job['outputStamps'];
  /** The outputs of a succeeded job whose outputs are values (a deferred job's run). */
  outputs?: Json;
  /** What a store step put in the data store, however it ended (a failure may come after some items). */
  stored?: readonly StoredItem[];
}
