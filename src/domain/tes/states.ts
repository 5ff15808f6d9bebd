import type { TesState } from '../../contract/tes-states.js';
import type { Job, Task } from '../../store/store.js';
import { jobFailure } from '../../contract/wes-states.js';

/**
 * A TES task's state, from its gdflow task and its one job (docs/ga4gh.md, "States"):
 *
 *   QUEUED          the task waits for a worker (scheduled or queued, held by none)
 *   INITIALIZING    a worker holds it and its job has not started: inputs being placed, its image pulled, a slot awaited
 *   RUNNING         its job runs
 *   CANCELING       a cancel was asked and its job is being killed (stopping, or a stop requested)
 *   CANCELED        stopped
 *   COMPLETE        succeeded
 *   EXECUTOR_ERROR  an executor exited non-zero (or was killed for its memory or time)
 *   SYSTEM_ERROR    anything else failed it: an input that could not be placed, an output that could not be stored, an
 *                   image that could not be had, a URL this server cannot reach
 *   PREEMPTED       its worker was lost while it ran, more often than the job may be restarted
 * UNKNOWN and PAUSED are never answered: every task has a state, and gdflow does not pause tasks.
 */
export function tesState(task: Task, job: Job | undefined): TesState {
  switch (task.status) {
    case 'scheduled':
    case 'queued':
    case 'running':
      if (task.stopRequested) return 'CANCELING';
      if (job?.status === 'running') return 'RUNNING';
      if (task.status === 'running') return job?.status === 'queued' && task.heldBy !== null ? 'INITIALIZING' : 'RUNNING';
      return task.heldBy !== null ? 'INITIALIZING' : 'QUEUED';
    case 'stopping':
      return 'CANCELING';
    case 'stopped':
      return 'CANCELED';
    case 'succeeded':
      return 'COMPLETE';
    case 'failed':
      return failedState(job);
  }
}

function failedState(job: Job | undefined): TesState {
  if (!job) return 'SYSTEM_ERROR';
  // The job's exit code is the failing executor's (script.ts); a job that failed before its command ran has none.
  return jobFailure({ exitCode: job.exitCode, lastOutcome: job.attempts[job.attempts.length - 1]?.outcome, reason: job.reason });
}

/** The gdflow task states a TES state filter reads (the rest is decided task by task). */
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
