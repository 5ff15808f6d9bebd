/**
 * The states of a GA4GH WES 1.1 run, and how a gdflow task's state and its jobs' make one (docs/ga4gh.md, "WES
 * states"). Pure: it reads plain values, so that the server, the console and tests decide a run's state the same way.
 */
import { TES_STATES, type TesState } from './tes-states.js';

/** WES 1.1's State enum names the same eleven states as TES 1.1's: one list serves both. */
export const WES_STATES = TES_STATES;

export type WesState = TesState;

/** What of a gdflow task a WES state is decided from. */
export interface WesTaskFacts {
  /** The task's gdflow status (scheduled, queued, running, stopping, stopped, succeeded, failed; anything else: UNKNOWN). */
  status: string;
  stopRequested: boolean;
  /** Whether a worker holds the task. */
  held: boolean;
  /** Its jobs: their status, exit code and the outcome of their last attempt (failed, lost, out_of_memory, timed_out...). */
  jobs: ReadonlyArray<{ status: string; exitCode: number | null; lastOutcome: string | undefined; reason: string }>;
}

/** How a failed job failed: its command (EXECUTOR_ERROR), its worker lost (PREEMPTED), or anything else (SYSTEM_ERROR). */
export type JobFailure = 'EXECUTOR_ERROR' | 'PREEMPTED' | 'SYSTEM_ERROR';

const EXECUTOR_OUTCOMES = new Set(['failed', 'out_of_memory', 'timed_out']);

/**
 * A failed job's kind of failure: PREEMPTED when its worker was lost while it ran (more often than a job is restarted),
 * EXECUTOR_ERROR when its command exited non-zero or was killed for its memory or time, SYSTEM_ERROR otherwise (an
 * input not placed, an output not stored, an image not had, a CWL expression or type error).
 */
export function jobFailure(job: { exitCode: number | null; lastOutcome: string | undefined; reason: string }): JobFailure {
  if (job.lastOutcome === 'lost' || /^its worker was lost/.test(job.reason)) return 'PREEMPTED';
  if (job.lastOutcome === 'out_of_memory' || job.lastOutcome === 'timed_out') return 'EXECUTOR_ERROR';
  if (job.exitCode !== null && job.exitCode !== 0 && (job.lastOutcome === undefined || EXECUTOR_OUTCOMES.has(job.lastOutcome))) return 'EXECUTOR_ERROR';
  return 'SYSTEM_ERROR';
}

/**
 *   QUEUED          scheduled or queued, no worker holds it
 *   INITIALIZING    a worker holds it and none of its jobs has started yet
 *   RUNNING         a job of it runs or has ended, and it has not
 *   CANCELING       a cancel was asked and its jobs are being killed
 *   CANCELED        stopped
 *   COMPLETE        succeeded
 *   EXECUTOR_ERROR  failed, and a job's command failed it (exit code, memory, time)
 *   SYSTEM_ERROR    failed otherwise (and a failed task with no failed job)
 *   PREEMPTED       failed because a job's worker was lost more often than a job is restarted
 *   UNKNOWN         a status this table does not know (none today); PAUSED is never answered: gdflow does not pause runs
 */
export function wesState(task: WesTaskFacts): WesState {
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

/**
 * The state a task of this gdflow status is counted in by service-info's system_state_counts, which counts every task
 * of the store by status in one query: a failed task is counted as EXECUTOR_ERROR there (telling it from a
 * SYSTEM_ERROR or PREEMPTED takes reading its jobs), a running one as RUNNING.
 */
export function countedState(status: string): WesState {
  if (status === 'failed') return 'EXECUTOR_ERROR';
  if (status === 'running') return 'RUNNING';
  return wesState({ status, stopRequested: false, held: false, jobs: [] });
}
