import { removeWorkDir } from './linked-job-dirs.js';
import { decide, IllegalTransition, type Change, type Decision, type Effect, type RuleEvent, type WorkerView } from '../domain/tasks/rules/index.js';
import { isTerminalTask } from '../domain/tasks/states.js';
import type { Layout } from './layout.js';
import type { LiveTask } from './live-task.js';
import type { Log } from './log.js';
import type { Scheduler } from './scheduler.js';
import type { Slots } from './slots.js';
import type { StateWriter } from './writer.js';

const now = () => Date.now() / 1000;

/** What carrying out decisions asks of the worker. */
export interface DriverHost {
  /** Look at the task again (now, or from a timer). */
  wake(taskId: string): void;
  /** Done with the task: give up its lease with the next write and forget it. */
  retire(live: LiveTask): void;
  /** Drop the task without writing anything more for it, and kill its jobs here (see handle). */
  abandon(live: LiveTask, why: string): void;
  /** Remove the task's files, then its rows (a DELETE). */
  removeTask(live: LiveTask): Promise<void>;
}

/**
 * Between the rules and the worker: asks the rules what an event means for a task (domain/tasks/rules) and carries
 * out their decision, the changes into the worker's memory and its next write, then the effects.
 */
export class TaskDriver {
  constructor(
    private readonly worker: WorkerView,
    private readonly writer: StateWriter,
    private readonly scheduler: Scheduler,
    private readonly slots: Slots,
    private readonly layout: Layout,
    private readonly log: Log,
    private readonly host: DriverHost,
  ) {}

  /**
   * Decide and carry out. Returns the removal of the task when the decision was to remove it (a DELETE waits for it).
   *
   * A rule that asks for a transition the table forbids (IllegalTransition) is a bug in the rules. Nothing of that
   * decision is carried out; the task ends at once through legal transitions only (task-rules.ts, halt: its jobs here
   * killed, its unfinished jobs cancelled, the task failed with the error as its reason, its lease given up), and the
   * worker goes on with its other tasks. Not logged and written anyway, which would leave in the store a state no
   * rule foresees; not the whole worker stopped, which would stop every task it holds for the bug of one and meet
   * the bug again wherever the task goes next; not left as it is, which would hang the task with the event lost.
   * Should the halt itself fail, the task is given up as if its lease were lost, and its lease released, so that
   * whoever takes it next starts again from the last legal state in the store.
   */
  handle(live: LiveTask, event: RuleEvent): Promise<void> | undefined {
    let decision: Decision;
    try {
      decision = decide(live, event, this.worker);
    } catch (error) {
      if (!(error instanceof IllegalTransition)) throw error;
      this.log('error', 'the task rules asked for a transition the state table forbids', { task: live.task.id, event: event.kind, error: error.message });
      try {
        decision = decide(live, { kind: 'halt', at: now(), error }, this.worker);
      } catch (again) {
        this.host.abandon(live, `its rules failed: ${again instanceof Error ? again.message : String(again)}`);
        this.writer.release(live.task.id);
        return undefined;
      }
    }
    return this.apply(live, decision);
  }

  private apply(live: LiveTask, decision: Decision): Promise<void> | undefined {
    for (const change of decision.changes) this.change(live, change);
    let removal: Promise<void> | undefined;
    for (const effect of decision.effects) removal = this.carryOut(live, effect) ?? removal;
    return removal;
  }

  /** A change in memory at once, and in the store with the next write. */
  private change(live: LiveTask, change: Change): void {
    switch (change.kind) {
      case 'task': {
        const { patch } = change;
        Object.assign(live.task, patch);
        this.writer.pending.tasks.push({ id: live.task.id, patch });
        if (patch.status === 'queued') this.scheduler.enqueue(live); // a scheduled task's start time came
        if (patch.status !== undefined && isTerminalTask(patch.status)) {
          this.log('info', `task ${patch.status}`, { task: live.task.id, name: live.task.name, reason: patch.reason });
        }
        return;
      }
      case 'new-job': {
        const entry = live.addJob(change.job);
        this.writer.pending.newJobs.push(change.job);
        if (entry.job.status === 'queued') this.scheduler.enqueue(live);
        return;
      }
      case 'job': {
        const { patch } = change;
        const entry = this.job(live, change.jobId);
        const from = entry.job.status;
        Object.assign(entry.job, patch);
        if (patch.spec !== undefined) live.respec(entry);
        if (patch.status !== undefined) {
          live.statusChanged(entry, from);
          if (patch.status === 'queued') this.scheduler.enqueue(live);
        }
        this.writer.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch });
        return;
      }
      case 'stored':
        this.writer.pending.stored.push(...change.records);
        return;
    }
  }

  private carryOut(live: LiveTask, effect: Effect): Promise<void> | undefined {
    const taskId = live.task.id;
    switch (effect.kind) {
      case 'kill':
        this.slots.kill(effect.jobId, effect.because);
        return;
      case 'not-started':
        this.scheduler.requeue(live, this.job(live, effect.jobId));
        return;
      case 'hold': {
        const entry = this.job(live, effect.jobId);
        if (effect.until === null) {
          entry.notBefore = undefined;
          return;
        }
        entry.notBefore = effect.until * 1000;
        this.wakeAt(taskId, effect.until);
        return;
      }
      case 'wake':
        this.wakeAt(taskId, effect.at);
        return;
      case 'ready':
        this.scheduler.ready(live, this.job(live, effect.jobId));
        return;
      case 'gather':
        this.scheduler.gather(live, this.job(live, effect.jobId));
        this.host.wake(taskId);
        return;
      case 'adopt':
        this.scheduler.adopt(live, this.job(live, effect.jobId), effect.handle);
        return;
      case 'remove-intermediates':
        this.removeIntermediates(taskId, effect.nodeIds);
        return;
      case 'release':
        this.host.retire(live);
        return;
      case 'remove-task':
        return this.host.removeTask(live);
      case 'log':
        this.log(effect.level, effect.message, effect.fields);
        return;
    }
  }

  private job(live: LiveTask, jobId: string) {
    const entry = live.byId.get(jobId);
    if (!entry) throw new Error(`job ${jobId} is not a job of task ${live.task.id}`);
    return entry;
  }

  private wakeAt(taskId: string, at: number): void {
    setTimeout(() => this.host.wake(taskId), Math.max(0, at * 1000 - Date.now()) + 5).unref();
  }

  /**
   * Delete the working directories of a task's tool jobs (docs/tasks.md, "Intermediate cleanup"), once the write
   * that forgets their outputs' stamps is committed.
   */
  private removeIntermediates(taskId: string, nodeIds: readonly string[]): void {
    void this.writer
      .flush()
      .then(() => Promise.all(nodeIds.map((nodeId) => removeWorkDir(this.layout, { taskId, nodeId }))))
      .then(() => this.log('info', 'removed intermediate outputs', { task: taskId, jobs: nodeIds.length }))
      .catch((error: unknown) => this.log('error', 'removing intermediate outputs failed', { task: taskId, error: String(error) }));
  }
}
