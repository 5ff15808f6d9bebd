import type { Decision } from './decision.js';
import { jobGathered, jobResolved, type JobGathered, type JobResolved } from './deferred-rules.js';
import { cacheProbed, jobEnded, jobStarted, takeOver, type CacheProbed, type JobEnded, type JobStarted } from './job-rules.js';
import type { JobState, TaskState, WorkerView } from './state.js';
import { advance, deleteTask, halt } from './task-rules.js';
import type { IllegalTransition } from './transitions.js';

/**
 * The task and job rules (docs/tasks.md): what happens to a task, and what the rules decide of it. The engine turns
 * what it sees (a claim, a job's start and end, a stop request, a DELETE) into an event, asks `decide`, and carries
 * out the decision: its changes (checked against the state table, states.ts) and its effects (effects.ts).
 *
 * A new kind of event is a new member of RuleEvent and a rule for it (a deferred job resolved into a run, a value, an
 * expansion or a skip: deferred-rules.ts); a new state is a row of the state table and the rules into and out of it. The engine carries out changes and effects whatever their
 * cause, and learns what it needs of a state from states.ts.
 */
export type RuleEvent =
  /** Look at the task again: something changed (a job ended or started, a stop was asked, a retry's wait ended). */
  | { kind: 'look'; at: number }
  /** A worker claimed the task: what an earlier owner left (jobs to follow, jobs lost with it). */
  | { kind: 'taken-over'; at: number }
  | JobStarted
  | JobEnded
  | CacheProbed
  /** A deferred job's resolver decided what it is (deferred-rules.ts). */
  | JobResolved
  /** The jobs a deferred job added have ended, and their outputs were gathered into its own. */
  | JobGathered
  /** A DELETE of the task this worker holds. */
  | { kind: 'delete' }
  /** The rules asked for a transition the table forbids, deciding another event of this task. */
  | { kind: 'halt'; at: number; error: IllegalTransition };

export function decide(state: TaskState, event: RuleEvent, worker: WorkerView): Decision {
  switch (event.kind) {
    case 'look':
      return advance(state, event.at, worker);
    case 'taken-over':
      return takeOver(state, event.at, worker);
    case 'job-started':
      return jobStarted(state, jobOf(state, event.jobId), event);
    case 'job-ended':
      return jobEnded(state, jobOf(state, event.jobId), event, worker);
    case 'cache-probed':
      return cacheProbed(state, jobOf(state, event.jobId), event, worker);
    case 'job-resolved':
      return jobResolved(state, jobOf(state, event.jobId), event);
    case 'job-gathered':
      return jobGathered(state, jobOf(state, event.jobId), event);
    case 'delete':
      return deleteTask(state, worker.running);
    case 'halt':
      return halt(state, worker.running, event.at, event.error);
  }
}

function jobOf(state: TaskState, jobId: string): JobState {
  const job = state.byId.get(jobId);
  if (!job) throw new Error(`job ${jobId} is not a job of task ${state.task.id}`);
  return job;
}

export { changesOf, NOTHING, type Change, type Decision } from './decision.js';
export type { Effect, KillReason } from './effects.js';
export type { AddedJob, JobGathered, JobResolved, Resolution } from './deferred-rules.js';
export { cannotRun, stopTask } from './task-rules.js';
export { startReason } from './job-rules.js';
export { NOTHING_RUNS_HERE } from './state.js';
export type { AttemptOutcome, AttemptResult, JobState, RunningHere, TaskRows, TaskState, WorkerView } from './state.js';
export { IllegalTransition } from './transitions.js';
