import type { JobStatus, TaskStatus } from '../../contract/states.js';

/**
 * Task states (docs/tasks.md): scheduled → queued → running → succeeded | failed; stopping → stopped. Job states:
 * waiting → queued → running → succeeded | failed; queued → skipped; any unfinished job → cancelled. Their names are in
 * contract/states.ts, which the API's schemas and the store share; their transitions are here.
 */
export type { JobStatus, TaskStatus };

/**
 * Task and job states and the transitions between them (docs/tasks.md, "States"). Every transition is
 * persisted, with its reason, as a task event. The rules (rules/) may make only these: any other is an
 * IllegalTransition. A state is added here and in the rules that lead to it and out of it; what the engine
 * needs to know of a state (whether it is an end, whether it lets dependent jobs run, whether a task in it
 * starts jobs) is said below, not in the engine.
 *
 * Task:  scheduled ─(start time reached)→ queued ─(first job starts)→ running
 *        running → succeeded (every job succeeded) | failed (a job failed) | stopping (stop asked)
 *        scheduled | queued → stopped (stop asked before anything ran); stopping → stopped
 *        scheduled | queued → failed (it cannot be run, or a job failed before any started)
 *        queued → succeeded (every job succeeded before one was reported started)
 * Job:   waiting ─(all upstream jobs succeeded)→ queued ─(resources free, its process started)→ running
 *        queued → failed (its process could not be started); queued → queued (that start is tried again)
 *        running → succeeded | failed | queued (its worker died or shut down while it ran, or it is retried)
 *        waiting | queued | running → cancelled (the task was stopped, or another job failed)
 *        A deferred job (job-spec.ts, kind 'step': its work is decided when its upstream jobs have ended) is resolved
 *        while queued: into a run (it stays queued, and runs as a tool job does), a value (queued → running →
 *        succeeded in one decision), an expansion (queued → running: it gathers the jobs it added, and ends when they
 *        have: running → succeeded | failed), or nothing to do (queued → skipped: a conditional step whose condition
 *        is false; its outputs are nulls, and the jobs after it run).
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
  queued: ['queued', 'running', 'failed', 'skipped', 'cancelled'],
  running: ['succeeded', 'failed', 'queued', 'cancelled'],
  succeeded: [],
  failed: [],
  skipped: [],
  cancelled: [],
};

const statesOf = <S extends string>(table: Record<S, readonly S[]>): S[] => Object.keys(table) as S[];

/** Every state, in the table's order. */
export const TASK_STATES: readonly TaskStatus[] = statesOf(TASK_TRANSITIONS);
export const JOB_STATES: readonly JobStatus[] = statesOf(JOB_TRANSITIONS);

/** The ends: the states with no way out. */
export const TERMINAL_TASK_STATES: readonly TaskStatus[] = TASK_STATES.filter((s) => TASK_TRANSITIONS[s].length === 0);
export const TERMINAL_JOB_STATES: readonly JobStatus[] = JOB_STATES.filter((s) => JOB_TRANSITIONS[s].length === 0);

export const isTerminalTask = (status: TaskStatus): boolean => TASK_TRANSITIONS[status].length === 0;
export const isTerminalJob = (status: JobStatus): boolean => JOB_TRANSITIONS[status].length === 0;

/**
 * The states of an upstream job that let the jobs after it run: a skipped job does not fail its dependents (CWL
 * passes its outputs on as nulls).
 */
export const UNBLOCKING_JOB_STATES: readonly JobStatus[] = ['succeeded', 'skipped'];
export const unblocksDependents = (status: JobStatus): boolean => UNBLOCKING_JOB_STATES.includes(status);

/** The states of a task whose queued jobs may start. */
export const DISPATCHING_TASK_STATES: readonly TaskStatus[] = ['queued', 'running'];

export interface Progress {
  /** Jobs that succeeded or were skipped. */
  done: number;
  total: number;
  running: number;
  failed: number;
  percent: number;
}

/** Progress from the number of jobs in each state. */
export function progressOf(counts: Partial<Record<JobStatus, number>>): Progress {
  const total = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
  const done = (counts.succeeded ?? 0) + (counts.skipped ?? 0);
  return {
    done,
    total,
    running: counts.running ?? 0,
    failed: counts.failed ?? 0,
    percent: total === 0 ? 100 : Math.round((done / total) * 1000) / 10,
  };
}
