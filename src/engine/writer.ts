import type { Store } from '../store/store.js';
import { PendingChanges } from './pending-changes.js';
import type { Log } from './log.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long jobs' changes may wait for the changes of other jobs to be written with them (see soon). Short jobs on a
 * worker with a few slots start and end hundreds of times a second; a commit each made the store's statements, not
 * the jobs, the larger part of a job's server CPU (BENCHMARKS.md, issue 23, item 8). At 10 ms a loaded machine's
 * jobs (one start or end every 10-30 ms) seldom shared a commit: 0.85 commits per job of bench:engine's DAG.
 */
export const GROUP_COMMIT_MS = 50;
/** Jobs' changes that are written at once, without waiting out GROUP_COMMIT_MS (a pass that decided many). */
export const GROUP_COMMIT_JOBS = 256;

/**
 * The worker's writes (docs/tasks.md, "Recovery"). Changes are made in memory at once and written to the store
 * together: one commit for all the scheduling passes of a few milliseconds decided (soon), checked against the worker's leases in the same
 * transaction (graphile-worker's completeJobs/failJobs write only for the worker that holds the lock, likewise), and
 * not waiting for the disk. A job's process is started only after the write that records its start has committed,
 * unless the lease is young enough that no other worker can hold the task meanwhile (scheduler.ts).
 */
export class StateWriter {
  /** What is decided and not yet on its way to the store. */
  pending = new PendingChanges();
  private writing: Promise<void> | undefined;
  private nextWrite: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly owner: string,
    private readonly log: Log,
    private readonly tasks: {
      /** Whether this worker still holds the task (a failed write is tried again only for those). */
      held(taskId: string): boolean;
      /** The store says another worker holds the task now (or it was deleted): nothing of it was written. */
      lost(taskId: string): void;
    },
  ) {}

  /** Give up a task's lease with the next write. */
  release(taskId: string): void {
    this.pending.release.push(taskId);
  }

  /**
   * Write what is pending; tasks the store says this worker lost are given up. One write at a time: what becomes
   * pending while a write is under way goes in one next write, however many passes asked for it, so that the store's
   * round trips, not the passes, set how often the engine commits (on PostgreSQL a commit is several round trips).
   * Resolves when everything pending at the call is written.
   */
  flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.writing) {
      if (this.pending.empty) return Promise.resolve();
      const batch = this.pending;
      this.pending = new PendingChanges();
      this.writing = this.write(batch).finally(() => (this.writing = undefined));
      return this.writing;
    }
    this.nextWrite ??= this.writing.then(() => {
      this.nextWrite = undefined;
      return this.flush();
    });
    return this.nextWrite;
  }

  /**
   * Write what is pending soon: at once when it changes a task (its start, its end, a lease given up: what a client
   * waits for) or many jobs, else within GROUP_COMMIT_MS, with whatever other jobs' starts and ends come meanwhile (a group commit).
   * Nothing waits for these writes: a job whose start must be on record first is written by flush. A worker that dies
   * meanwhile loses those changes as it loses a write under way: its jobs' runs are not on record, and the task's next
   * owner runs them again (docs/tasks.md, "Recovery").
   */
  soon(): void {
    if (this.pending.tasks.length > 0 || this.pending.release.length > 0 || this.pending.jobs.length >= GROUP_COMMIT_JOBS) {
      void this.flush();
      return;
    }
    if (this.timer !== undefined || this.pending.empty) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, GROUP_COMMIT_MS);
    this.timer.unref();
  }

  private async write(batch: PendingChanges): Promise<void> {
    // A store that cannot be reached is asked again: the leases' deadlines (the worker's poll) decide when to give up.
    for (let attempt = 0; ; attempt++) {
      try {
        const { lost } = await this.store.applyChanges({ ...batch.changes(), owner: this.owner, relaxed: true });
        for (const id of lost) this.tasks.lost(id);
        return;
      } catch (error) {
        const live = [...batch.taskIds()].filter((id) => this.tasks.held(id));
        this.log('error', 'writing task state failed', { error: String(error), attempt });
        if (live.length === 0 && batch.release.length === 0) return;
        await sleep(Math.min(5000, 100 * 2 ** attempt));
      }
    }
  }
}
