import { JOB_TRANSITIONS, TASK_TRANSITIONS, type JobStatus, type TaskStatus } from '../states.js';

/**
 * A rule asked for a transition the state table (states.ts) does not have: a bug in the rules, never a user's
 * mistake. Thrown before anything of the decision is carried out, so nothing illegal is written; tests fail on it,
 * and the engine fails the task it concerns through legal transitions (rules/task-rules.ts, halt).
 */
export class IllegalTransition extends Error {
  constructor(
    readonly subject: 'task' | 'job',
    readonly id: string,
    readonly from: TaskStatus | JobStatus,
    readonly to: TaskStatus | JobStatus,
  ) {
    super(`${subject} ${id} cannot go from ${from} to ${to} (docs/tasks.md, "States")`);
    this.name = 'IllegalTransition';
  }
}

export const isTaskTransition = (from: TaskStatus, to: TaskStatus): boolean => TASK_TRANSITIONS[from].includes(to);
export const isJobTransition = (from: JobStatus, to: JobStatus): boolean => JOB_TRANSITIONS[from].includes(to);

export function checkTaskTransition(id: string, from: TaskStatus, to: TaskStatus): void {
  if (!isTaskTransition(from, to)) throw new IllegalTransition('task', id, from, to);
}

export function checkJobTransition(id: string, from: JobStatus, to: JobStatus): void {
  if (!isJobTransition(from, to)) throw new IllegalTransition('job', id, from, to);
}
