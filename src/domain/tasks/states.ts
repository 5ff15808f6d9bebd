import type { JobStatus, TaskStatus } from '../../contract/states.js';

/**
 * Task states (docs/tasks.md): scheduled → queued → running → succeeded | failed; stopping → stopped. Job states:
 * waiting → queued → running → succeeded | failed; any unfinished job → cancelled. Their names are in
 * contract/states.ts, which the API's schemas and the store share; their transitions are here.
 */
export type { JobStatus, TaskStatus };

export const TERMINAL_TASK_STATES: readonly TaskStatus[] = ['succeeded', 'failed', 'stopped'];
export const TERMINAL_JOB_STATES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

/**
 * Task and job states and the transitions between them (docs/tasks.md). Every transition is
 * persisted, with its reason, as a task event.
 *
 * Task:  scheduled ─(start time reached)→ queued ─(first job starts)→ running
 *        running → succeeded (every job succeeded) | failed (a job failed) | stopping (stop asked)
 *        scheduled | queued → stopped (stop asked before anything ran); stopping → stopped
 * Job:   waiting ─(all upstream jobs succeeded)→ queued ─(resources free, its process started)→ running
 *        queued → failed (its process could not be started)
 *        running → succeeded | failed | queued (its worker died or shut down while it ran: re-run from scratch)
 *        waiting | queued | running → cancelled (the task was stopped, or another job failed)
 */
export const TASK_TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  scheduled: ['queued', 'stopped', 'failed'],
  queued: ['running', 'stopped', 'failed', 'succeeded'],
  running: ['succeeded', 'failed', 'stopping'],
  stopping: ['stopped'],
  succeeded: [],
  failed: [],
  stopped: [],
};

export const JOB_TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  waiting: ['queued', 'cancelled'],
  queued: ['running', 'failed', 'cancelled'],
  running: ['succeeded', 'failed', 'queued', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export interface Progress {
  done: number;
  total: number;
  running: number;
  failed: number;
  percent: number;
}

/** Progress from the number of jobs in each state. */
export function progressOf(counts: Partial<Record<JobStatus, number>>): Progress {
  const total = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
  const done = counts.succeeded ?? 0;
  return {
    done,
    total,
    running: counts.running ?? 0,
    failed: counts.failed ?? 0,
    percent: total === 0 ? 100 : Math.round((done / total) * 1000) / 10,
  };
}
