import type { Store } from '../store/store.js';
import { PendingChanges } from './pending-changes.js';
import type { Log } from './log.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The worker's writes (docs/tasks.md, "Recovery"). Changes are made in memory at once and written to the store
 * together: one commit for all a scheduling pass decided, checked against the worker's leases in the same
 * transaction (graphile-worker's completeJobs/failJobs write only for the worker that holds the lock, likewise), and
 * not waiting for the disk. A job's process is started only after the write that records its start has committed,
 * unless the lease is young enough that no other worker can hold the task meanwhile (scheduler.ts).
 */
export class StateWriter {
  /** What is decided and not yet on its way to the store. */
  pending = new PendingChanges();
  private writing: Promise<void> | undefined;
  private nextWrite: Promise<void> | undefined;

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
