/**
 * One squeue for all of a worker's Slurm jobs per poll interval (gentle with the controller: Toil asked job by job
 * and flooded it). The usual end of a job is not learned here but from its status file (slurm-executor.ts); squeue is for
 * what files cannot tell: a job Slurm killed, or one that never started. Each job being followed registers a listener; after each poll every listener
 * gets its job's row, or undefined when the controller did not list it (never submitted, or forgotten after
 * MinJobAge). Ids are asked for by list (`-j a,b,c`, in chunks), with `--states=all` so that ended jobs the
 * controller still remembers are reported with their final state.
 */
import { parseQueue, QUEUE_FORMAT, slurmCall, SlurmCommandError, type QueueRow } from './cli.js';

export type RowListener = (row: QueueRow | undefined) => void;

/** Ids per squeue call: keeps the command line short; each chunk is one more RPC. */
const CHUNK = 500;

export class SlurmPoller {
  private readonly listeners = new Map<string, Set<RowListener>>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** squeue calls made (each is one controller RPC per chunk); for tests and benchmarks. */
  calls = 0;

  constructor(
    private readonly squeue: string,
    private readonly intervalMs: number,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Follows a job until the returned function is called. */
  watch(id: string, listener: RowListener): () => void {
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    this.schedule();
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  /** Ask the controller again soon (within `soonMs`) rather than at the next interval: after a scancel. */
  soon(soonMs: number): void {
    this.wantSoon = true;
    if (this.timer && !this.polling) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.schedule(soonMs);
  }

  private wantSoon = false;

  private schedule(delayMs = this.intervalMs): void {
    if (this.timer || this.polling || this.listeners.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, delayMs);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    this.wantSoon = false;
    try {
      const ids = [...this.listeners.keys()];
      const rows = new Map<string, QueueRow>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        this.calls++;
        let text: string;
        try {
          text = await slurmCall(this.squeue, ['--noheader', '--states=all', '--format', QUEUE_FORMAT, '--jobs', chunk.join(',')]);
        } catch (error) {
          // Asked only for ids the controller has forgotten, squeue fails with "Invalid job id specified".
          if (error instanceof SlurmCommandError && /Invalid job id/i.test(error.stderr)) text = '';
          else {
            // The controller cannot be reached: nobody is told anything this time; the next poll asks again.
            this.onError(error as Error);
            return;
          }
        }
        for (const row of parseQueue(text)) rows.set(row.id, row);
      }
      for (const id of ids) {
        for (const listener of [...(this.listeners.get(id) ?? [])]) listener(rows.get(id));
      }
    } finally {
      this.polling = false;
      const soon = this.wantSoon;
      this.wantSoon = false;
      this.schedule(soon ? Math.min(this.intervalMs, 250) : this.intervalMs);
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }
}
