import type { Ga4ghState, TesState, WesState } from '../../contract/ga4gh-states.js';
import type { Job, Task } from '../../store/store.js';

/**
 * A gdflow task's GA4GH state, for TES (a task of one job) and WES (a task of any number), from the task and its
 * jobs (docs/ga4gh.md, "States" and "WES states"). Pure: it reads plain values, so that the server and tests decide
 * a state the same way. One table serves both APIs:
 *
 *   state           gdflow task                               TES task                        WES run
 *   QUEUED          scheduled or queued, held by no worker    waits for a worker              the same
 *   INITIALIZING    held by a worker, no job started yet      inputs placed, image pulled     the same
 *   RUNNING         a job has started, the task not ended     its job runs                    a job runs or has ended
 *   CANCELING       a cancel asked (stopping)                 its job is being killed         its jobs are being killed
 *   CANCELED        stopped
 *   COMPLETE        succeeded
 *   EXECUTOR_ERROR  failed, a job's command failed it          an executor exited non-zero, or was killed for its memory or time
 *   SYSTEM_ERROR    failed otherwise                           an input not placed, an output not stored, an image not had, a
 *                                                              URL not reachable; a CWL expression or type error (WES)
 *   PREEMPTED       failed, a job's worker lost more often than a job is restarted
 *   UNKNOWN         a status this table does not know (none today)
 *   PAUSED          never: gdflow does not pause tasks
 *
 * TES's list filter (statusesOf) and WES's service-info counts (countedState) read the same table by status alone.
 */

/** What of a gdflow task its state is decided from. */
export interface TaskFacts {
  /** The task's gdflow status (scheduled, queued, running, stopping, stopped, succeeded, failed; anything else: UNKNOWN). */
  status: string;
  stopRequested: boolean;
  /** Whether a worker holds the task. */
  held: boolean;
  /** Its jobs: their status, exit code and the outcome of their last attempt (failed, lost, out_of_memory, timed_out...). */
  jobs: ReadonlyArray<JobFacts>;
}

export interface JobFacts {
  status: string;
  exitCode: number | null;
  lastOutcome: string | undefined;
  reason: string;
}

/** How a failed job failed: its command (EXECUTOR_ERROR), its worker lost (PREEMPTED), or anything else (SYSTEM_ERROR). */
export type JobFailure = 'EXECUTOR_ERROR' | 'PREEMPTED' | 'SYSTEM_ERROR';

const EXECUTOR_OUTCOMES = new Set(['failed', 'out_of_memory', 'timed_out']);

/**
 * A failed job's kind of failure: PREEMPTED when its worker was lost while it ran (more often than a job is restarted),
 * EXECUTOR_ERROR when its command exited non-zero or was killed for its memory or time, SYSTEM_ERROR otherwise.
 */
export function jobFailure(job: Omit<JobFacts, 'status'>): JobFailure {
  if (job.lastOutcome === 'lost' || /^its worker was lost/.test(job.reason)) return 'PREEMPTED';
  if (job.lastOutcome === 'out_of_memory' || job.lastOutcome === 'timed_out') return 'EXECUTOR_ERROR';
  if (job.exitCode !== null && job.exitCode !== 0 && (job.lastOutcome === undefined || EXECUTOR_OUTCOMES.has(job.lastOutcome))) return 'EXECUTOR_ERROR';
  return 'SYSTEM_ERROR';
}

/** The state of a task, by the table above. */
export function taskState(task: TaskFacts): Ga4ghState {
  switch (task.status) {
    case 'scheduled':
    case 'queued':
    case 'running': {
      if (task.stopRequested) return 'CANCELING';
      const started = task.jobs.some((job) => job.status !== 'queued' && job.status !== 'waiting');
      if (started) return 'RUNNING';
      return task.held || task.status === 'running' ? 'INITIALIZING' : 'QUEUED';
    }
    case 'stopping':
      return 'CANCELING';
    case 'stopped':
      return 'CANCELED';
    case 'succeeded':
      return 'COMPLETE';
    case 'failed': {
      const failures = task.jobs.filter((job) => job.status === 'failed').map(jobFailure);
      // The first cause wins in this order: a lost worker says more than the command's failure that may have followed.
      for (const kind of ['PREEMPTED', 'EXECUTOR_ERROR'] as const) if (failures.includes(kind)) return kind;
      return 'SYSTEM_ERROR';
    }
    default:
      return 'UNKNOWN';
  }
}

/** The facts of a stored task and its jobs. */
export const factsOf = (task: Task, jobs: readonly Job[]): TaskFacts => ({
  status: task.status,
  stopRequested: task.stopRequested,
  held: task.heldBy !== null,
  jobs: jobs.map((job) => ({ status: job.status, exitCode: job.exitCode, lastOutcome: job.attempts[job.attempts.length - 1]?.outcome, reason: job.reason })),
});

/** A TES task's state: its gdflow task and its one job. */
export const tesState = (task: Task, job: Job | undefined): TesState => taskState(factsOf(task, job ? [job] : []));

/** A WES run's state: its gdflow task and its jobs. */
export const wesState = (task: Task, jobs: readonly Job[]): WesState => taskState(factsOf(task, jobs));

/** The gdflow task statuses a TES state filter reads (the rest is decided task by task). */
export function statusesOf(state: TesState): Task['status'][] {
  switch (state) {
    case 'QUEUED':
    case 'INITIALIZING':
    case 'RUNNING':
      return ['scheduled', 'queued', 'running'];
    case 'CANCELING':
      return ['scheduled', 'queued', 'running', 'stopping'];
    case 'CANCELED':
      return ['stopped'];
    case 'COMPLETE':
      return ['succeeded'];
    case 'EXECUTOR_ERROR':
    case 'SYSTEM_ERROR':
    case 'PREEMPTED':
      return ['failed'];
    case 'UNKNOWN':
    case 'PAUSED':
      return [];
  }
}

/**
 * The state a task of this gdflow status is counted in by WES service-info's system_state_counts, which counts every
 * task of the store by status in one query: a failed task is counted as EXECUTOR_ERROR there (telling it from a
 * SYSTEM_ERROR or PREEMPTED takes reading its jobs), a running one as RUNNING.
 */
export function countedState(status: string): WesState {
  if (status === 'failed') return 'EXECUTOR_ERROR';
  if (status === 'running') return 'RUNNING';
  return taskState({ status, stopRequested: false, held: false, jobs: [] });
}
