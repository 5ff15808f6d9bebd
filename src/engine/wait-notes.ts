import { isWait, resourceWait } from '../domain/tasks/waiting.js';
import type { LiveJob, LiveTask } from './live-task.js';

/** How often, at most, the reason of a job already shown waiting is written again (its free counts move all the time). */
export const WAIT_NOTE_MS = 10_000;

/**
 * What queued jobs wait for, written into their reasons (docs/tasks.md, "Why a job waits"): through the store, so
 * that every API process can say it. A reason is written when it changes, never once per scheduling pass for every
 * queued job: the first wait of a job goes with the job's next write (usually the one that queued it, in the same
 * statement), and a job already shown waiting is written again at most every WAIT_NOTE_MS, however often the free
 * CPUs and memory it is told about change (the scheduling pass that follows that time writes the latest numbers).
 */
export class WaitNotes {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Change the job's reason (in memory and, with the next write, in the store). */
    private readonly write: (live: LiveTask, entry: LiveJob, reason: string) => void,
    /** Run a scheduling pass (to write what was held back). */
    private readonly wake: () => void,
    private readonly intervalMs = WAIT_NOTE_MS,
  ) {}

  /** A queued job its worker cannot fit yet. The text is made only when the numbers differ from the last ones. */
  resources(live: LiveTask, entry: LiveJob, need: { cpu: number; memMb: number }, free: { cpus: number; memMb: number }): void {
    const last = entry.resourceWait;
    const same = last && last.text === entry.job.reason && last.cpu === need.cpu && last.memMb === need.memMb;
    if (same && last.freeCpus === free.cpus && last.freeMemMb === free.memMb) return;
    if (same) {
      // Shown waiting, noted lately: new numbers would only be held back (note). Dispatch asks this of every queued
      // job in every pass, and the free counts move with every job's start and end: the text is made when it can go.
      const since = Date.now() - (entry.waitNotedAt ?? -Infinity);
      if (since < this.intervalMs) {
        this.later(this.intervalMs - since);
        return;
      }
    }
    const text = resourceWait(need, free);
    entry.resourceWait = { cpu: need.cpu, memMb: need.memMb, freeCpus: free.cpus, freeMemMb: free.memMb, text };
    this.note(live, entry, text);
  }

  /** The job waits for `text` (an image pull, Slurm's queue, resources). */
  note(live: LiveTask, entry: LiveJob, text: string): void {
    if (entry.job.reason === text) return;
    const now = Date.now();
    const since = entry.waitNotedAt === undefined ? Infinity : now - entry.waitNotedAt;
    if (isWait(entry.job.reason) && since < this.intervalMs) {
      this.later(this.intervalMs - since);
      return;
    }
    entry.waitNotedAt = now;
    this.write(live, entry, text);
  }

  /**
   * The job waits no more for what it was shown waiting for: a running job (a Slurm job its node started) gets
   * `reason`; a queued one keeps its reason until what comes next (its start, or another wait, written at once).
   */
  over(live: LiveTask, entry: LiveJob, reason?: string): void {
    entry.waitNotedAt = undefined;
    if (reason !== undefined && isWait(entry.job.reason)) this.write(live, entry, reason);
  }

  private later(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, ms + 5);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
