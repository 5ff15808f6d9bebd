import type { DataProvenance, Job, JobPatch, NewJob, StateChanges, Task, TaskPatch } from '../../../store/store.js';
import { unblocksDependents, type JobStatus, type TaskStatus } from '../states.js';
import type { Effect } from './effects.js';
import type { JobState } from './state.js';
import { checkJobTransition, checkTaskTransition } from './transitions.js';

/**
 * One change of state: the task's or one job's, with its new status (a transition) or without (a patch); a job
 * added to the task (a deferred job's expansion); or the provenance of data items a store step put in the data store,
 * written with the step's end (docs/data.md).
 */
export type Change =
  | { kind: 'task'; patch: TaskPatch }
  | { kind: 'job'; jobId: string; patch: JobPatch }
  | { kind: 'new-job'; job: NewJob }
  | { kind: 'stored'; records: readonly DataProvenance[] };

/** What a rule decided: the changes, in the order they are to be made, and the effects to carry out after them. */
export interface Decision {
  readonly changes: readonly Change[];
  readonly effects: readonly Effect[];
}

/** A job as a decision names it: its row (and, to let the jobs after it run, the job's place among them). */
type JobRef = { readonly job: Readonly<Job> };

/** Nothing to do (shared: most looks at a task decide nothing). */
export const NOTHING: Decision = Object.freeze({ changes: Object.freeze([]), effects: Object.freeze([]) });

/**
 * Builds a decision, checking each transition against the table from the state as the decision has made it so far
 * (a job may start and end in one decision), and counting which waiting jobs the decision lets run.
 */
export class DecisionBuilder {
  private readonly changes: Change[] = [];
  private readonly effects: Effect[] = [];
  /** Job statuses this decision has changed, by job id. */
  private jobStatuses: Map<string, JobStatus> | undefined;
  /** Waiting jobs and how many of their deps this decision has let them stop waiting for. */
  private unblocked: Map<JobState, number> | undefined;
  /** The task's status as this decision has made it so far. */
  taskStatus: TaskStatus;

  constructor(private readonly task: Readonly<Task>) {
    this.taskStatus = task.status;
  }

  get empty(): boolean {
    return this.changes.length === 0 && this.effects.length === 0;
  }

  /** A job's status as this decision has made it so far. */
  statusOf(job: JobRef): JobStatus {
    return this.jobStatuses?.get(job.job.id) ?? job.job.status;
  }

  /** How many of its deps a job still waits for once this decision is made. */
  stillWaitingOn(job: JobState): number {
    return job.waitingOn - (this.unblocked?.get(job) ?? 0);
  }

  taskTo(status: TaskStatus, reason: string, extra: Omit<TaskPatch, 'status' | 'reason'> = {}): void {
    checkTaskTransition(this.task.id, this.taskStatus, status);
    this.taskStatus = status;
    this.changes.push({ kind: 'task', patch: { status, reason, ...extra } });
  }

  jobTo(job: JobRef & { readonly dependents?: readonly JobState[] }, status: JobStatus, reason: string, extra: Omit<JobPatch, 'status' | 'reason'> = {}): void {
    const from = this.statusOf(job);
    checkJobTransition(job.job.id, from, status);
    (this.jobStatuses ??= new Map()).set(job.job.id, status);
    if (job.dependents && unblocksDependents(status) && !unblocksDependents(from)) {
      this.unblocked ??= new Map();
      for (const next of job.dependents) this.unblocked.set(next, (this.unblocked.get(next) ?? 0) + 1);
    }
    this.changes.push({ kind: 'job', jobId: job.job.id, patch: { status, reason, ...extra } });
  }

  /** A job added to the task, in the state it starts in. */
  addJob(job: NewJob): void {
    this.changes.push({ kind: 'new-job', job });
  }

  /** A change of a job that is not a transition (its handle, its outputs' stamps). */
  patchJob(job: JobRef, patch: Omit<JobPatch, 'status'>): void {
    this.changes.push({ kind: 'job', jobId: job.job.id, patch });
  }

  /** Where items a store step put in the data store came from (rules/job-rules.ts, ended). */
  stored(records: readonly DataProvenance[]): void {
    if (records.length > 0) this.changes.push({ kind: 'stored', records });
  }

  effect(effect: Effect): void {
    this.effects.push(effect);
  }

  build(): Decision {
    return this.empty ? NOTHING : { changes: this.changes, effects: this.effects };
  }
}

/**
 * A decision's changes as one write of the store, for a caller that writes them at once (the API stopping a task no
 * worker holds; a worker failing a task it cannot load). The worker's own decisions go through its batched writes.
 */
export function changesOf(taskId: string, decision: Decision): Pick<StateChanges, 'tasks' | 'jobs' | 'newJobs' | 'stored'> {
  const tasks: NonNullable<StateChanges['tasks']> = [];
  const jobs: NonNullable<StateChanges['jobs']> = [];
  const newJobs: NonNullable<StateChanges['newJobs']> = [];
  const stored: DataProvenance[] = [];
  for (const change of decision.changes) {
    if (change.kind === 'task') tasks.push({ id: taskId, patch: change.patch });
    else if (change.kind === 'job') jobs.push({ id: change.jobId, taskId, patch: change.patch });
    else if (change.kind === 'new-job') newJobs.push(change.job);
    else stored.push(...change.records);
  }
  return { tasks, jobs, newJobs, stored };
}
