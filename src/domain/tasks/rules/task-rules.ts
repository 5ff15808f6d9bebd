import type { Task } from '../../../store/store.js';
import { isTerminalJob, isTerminalTask, TASK_TRANSITIONS, type TaskStatus } from '../states.js';
import { DecisionBuilder, NOTHING, type Decision } from './decision.js';
import type { RunningHere, TaskRows, TaskState, WorkerView } from './state.js';
import type { IllegalTransition } from './transitions.js';

/**
 * The rules of a task as a whole (docs/tasks.md, "States"): moving it forward when something changed (its start
 * time came, a stop was asked, a job failed, every job succeeded), stopping it, deleting it, and ending it when it
 * cannot be run or its rules went wrong. Pure, as job-rules.ts.
 */

const runsHere = (state: TaskRows, running: RunningHere): boolean => state.jobs.some((entry) => running.has(entry.job.id));

/**
 * Something changed for the task (a job ended or started, a stop was asked, it was just claimed): whether it starts,
 * stops, fails or succeeds now. A task that has ended and has nothing running here is given up.
 */
export function advance(state: TaskState, at: number, worker: WorkerView): Decision {
  const task = state.task;
  // The common case, first and without allocating: a running task whose jobs are under way.
  if (!task.stopRequested && task.status !== 'scheduled' && !state.failed && !state.allSucceeded && !isTerminalTask(task.status)) return NOTHING;
  const out = new DecisionBuilder(task);
  if (isTerminalTask(task.status)) {
    // Ended while a job of it still ran here (or was being started): given up once nothing does.
  } else if (task.stopRequested) {
    stop(out, state, worker.running, at);
  } else {
    if (task.status === 'scheduled') {
      if (task.scheduleAt !== null && task.scheduleAt > at) {
        // Claimed by the database's clock, not yet due by this one's.
        out.effect({ kind: 'wake', at: task.scheduleAt });
        return out.build();
      }
      out.taskTo('queued', 'start time reached');
    }
    if (state.failed) failFast(out, state, worker.running, at);
    else if (state.allSucceeded) succeed(out, state, at, worker);
  }
  if (isTerminalTask(out.taskStatus) && !runsHere(state, worker.running)) out.effect({ kind: 'release' });
  return out.build();
}

/**
 * Stop a task: nothing more starts, its jobs that run here are killed, its other unfinished jobs are cancelled, and
 * it is stopped once none of its jobs runs here (until then, a running task is stopping). The one stop of the API
 * (for a task no worker holds, with `running` NOTHING_RUNS_HERE) and of the worker that holds the task.
 */
export function stopTask(state: TaskRows, running: RunningHere, at: number): Decision {
  const out = new DecisionBuilder(state.task);
  stop(out, state, running, at);
  return out.build();
}

function stop(out: DecisionBuilder, state: TaskRows, running: RunningHere, at: number): void {
  if (isTerminalTask(out.taskStatus)) return;
  // Asked by the API of a task no worker holds: the request is written with the stop.
  const asked = state.task.stopRequested ? {} : { stopRequested: true };
  if (out.taskStatus === 'running') out.taskTo('stopping', 'stop requested', asked);
  for (const entry of state.jobs) {
    const status = out.statusOf(entry);
    if (isTerminalJob(status)) continue;
    if (running.has(entry.job.id)) out.effect({ kind: 'kill', jobId: entry.job.id, because: 'stop' });
    else out.jobTo(entry, 'cancelled', 'the task was stopped', { endedAt: status === 'running' ? at : null });
  }
  if (!runsHere(state, running)) out.taskTo('stopped', 'stopped by request', { endedAt: at, ...asked });
}

/** A node that fails fails its task: nothing else starts, its running jobs are killed, the others cancelled. */
function failFast(out: DecisionBuilder, state: TaskState, running: RunningHere, at: number): void {
  const failed = state.failed!.job;
  for (const entry of state.jobs) {
    if (isTerminalJob(out.statusOf(entry))) continue;
    if (running.has(entry.job.id)) out.effect({ kind: 'kill', jobId: entry.job.id, because: 'fail-fast' });
    else out.jobTo(entry, 'cancelled', `not run: node ${failed.nodeId} failed`);
  }
  if (!runsHere(state, running)) out.taskTo('failed', `node ${failed.nodeId} (${failed.name}) failed: ${failed.reason}`, { endedAt: at });
}

/**
 * Every job succeeded. The task may ask (or the worker's setting say) that its intermediate outputs go: the working
 * directories of its tool jobs (docs/tasks.md, "Intermediate cleanup"); what its store steps stored stays. Their
 * jobs forget their outputs' stamps in the same write, so that no later job is a cache hit on them.
 */
function succeed(out: DecisionBuilder, state: TaskState, at: number, worker: WorkerView): void {
  const task = state.task;
  const skipped = state.jobs.filter((entry) => out.statusOf(entry) === 'skipped').length;
  out.taskTo('succeeded', succeededReason(state.jobs.length, skipped), { endedAt: at, ...(task.startedAt === null ? { startedAt: at } : {}) });
  const cleanup = task.plan.cleanup_intermediates;
  if (!(typeof cleanup === 'boolean' ? cleanup : worker.cleanupIntermediates)) return;
  const nodeIds: string[] = [];
  for (const entry of state.jobs) {
    if (entry.spec.kind !== 'tool') continue;
    out.patchJob(entry, { outputStamps: null });
    nodeIds.push(entry.spec.nodeId);
  }
  out.effect({ kind: 'remove-intermediates', nodeIds });
}

/** Why a task succeeded: all its jobs did (some may have been skipped). */
export function succeededReason(jobs: number, skipped: number): string {
  return skipped === 0 ? `all ${jobs} jobs succeeded` : `${jobs - skipped} jobs succeeded, ${skipped} skipped`;
}

/**
 * Delete a held task (the API asked): its jobs that run here are killed first; once none runs, its files and rows
 * go. The worker asks again until this says to remove it.
 */
export function deleteTask(state: TaskRows, running: RunningHere): Decision {
  const out = new DecisionBuilder(state.task);
  for (const entry of state.jobs) if (running.has(entry.job.id)) out.effect({ kind: 'kill', jobId: entry.job.id, because: 'stop' });
  if (out.empty) out.effect({ kind: 'remove-task' });
  return out.build();
}

/**
 * A claimed task whose jobs this version cannot read (written by another version, or damaged): nothing of it can run
 * here. It ends (a task being stopped, stopped) and is given up.
 */
export function cannotRun(task: Readonly<Task>, at: number, why: string): Decision {
  const out = new DecisionBuilder(task);
  if (!isTerminalTask(task.status)) out.taskTo(task.status === 'stopping' ? 'stopped' : 'failed', `cannot run: ${why}`, { endedAt: at });
  out.effect({ kind: 'release' });
  return out.build();
}

/**
 * The rules asked for a transition the table forbids (a bug): the task ends here through legal transitions only,
 * with the error as its reason, rather than go on from a state its rules did not foresee. Its jobs that run here are
 * killed without their end being recorded, its unfinished jobs cancelled, and it is given up.
 */
export function halt(state: TaskRows, running: RunningHere, at: number, error: IllegalTransition): Decision {
  const out = new DecisionBuilder(state.task);
  const reason = `engine error: ${error.message}`;
  for (const entry of state.jobs) {
    if (running.has(entry.job.id)) out.effect({ kind: 'kill', jobId: entry.job.id, because: 'lost' });
    const status = out.statusOf(entry);
    if (!isTerminalJob(status)) out.jobTo(entry, 'cancelled', reason, { endedAt: status === 'running' ? at : null });
  }
  const end = (['failed', 'stopped'] as const).find((s: TaskStatus) => TASK_TRANSITIONS[out.taskStatus].includes(s));
  if (end !== undefined) out.taskTo(end, reason, { endedAt: at });
  out.effect({ kind: 'release' });
  const fields = { task: state.task.id, error: error.message };
  out.effect({ kind: 'log', level: 'error', message: 'ended a task whose rules asked for a transition the state table forbids', fields });
  return out.build();
}
