/**
 * The names of task and job states: what the API shows (contract/tasks.ts), what the store keeps in its `status`
 * columns, and what the domain's state machine moves between (domain/tasks/states.ts, where the transitions and
 * their meaning are). Here, below all three, so that the store need not import the domain for them.
 */

/** Task states (docs/tasks.md, "States"). */
export const TASK_STATUSES = ['scheduled', 'queued', 'running', 'stopping', 'succeeded', 'failed', 'stopped'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Job states (docs/tasks.md, "States"; skipped: a deferred job with nothing to do, "Deferred jobs"). */
export const JOB_STATUSES = ['waiting', 'queued', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
