/**
 * One sampling clock for all running jobs (peak RSS, the memory watchdog, tracking of escaped processes).
 *
 * Each job used to have its own interval timer that read the whole of /proc: with N jobs, N scans of a machine
 * running N jobs every second, which with a thousand jobs kept the server's event loop busy for seconds at a time
 * (BENCHMARKS.md, bench:load). Now a job's sample reads only its own processes (its cgroup's members, or its
 * tree through the children files), and a sampler per interval wakes up when jobs are due, samples every due job
 * in budgeted pieces (turn-budget.ts), and sleeps again. Jobs due within a quarter of the interval of each other
 * are sampled in the same wake-up. Only on a kernel without children files does a job without a cgroup need the
 * whole process table: then the wake-up takes one shared scan (proc-scan.ts) for all of them.
 */
import { scanProcesses, type ProcTable } from './proc-scan.js';
import { budgeted } from './turn-budget.js';

export interface SampledJob {
  /** Reads the job's processes now (a few reads per process of the job). `table` is given when `needsTable` is set. */
  sample(table: ProcTable | undefined): void;
  /** The job's processes can only be found in a scan of all of /proc. */
  readonly needsTable: boolean;
}

class Sampler {
  /** When each job is due next (performance.now() milliseconds). */
  private readonly due = new Map<SampledJob, number>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private sampling = false;

  constructor(private readonly intervalMs: number) {}

  /** Samples `job` first `firstAfterMs` from now, then every interval; returns the function that stops it. */
  watch(job: SampledJob, firstAfterMs: number): () => void {
    this.due.set(job, performance.now() + firstAfterMs);
    this.schedule();
    return () => {
      this.due.delete(job);
      if (this.due.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.timerAt = Infinity;
      }
    };
  }

  private schedule(): void {
    if (this.sampling || this.due.size === 0) return;
    let first = Infinity;
    for (const at of this.due.values()) if (at < first) first = at;
    if (this.timer && this.timerAt <= first) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = first;
    // Not ref'd: a running job keeps the server alive through its launcher, not through its sampling.
    this.timer = setTimeout(() => void this.tick(), Math.max(0, first - performance.now())).unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.sampling = true;
    try {
      const horizon = performance.now() + this.intervalMs / 4;
      const jobs: SampledJob[] = [];
      for (const [job, at] of this.due) if (at <= horizon) jobs.push(job);
      const table = jobs.some((job) => job.needsTable) ? await scanProcesses() : undefined;
      await Promise.all(
        jobs.map((job) =>
          budgeted(() => {
            if (!this.due.has(job)) return; // ended meanwhile
            this.due.set(job, performance.now() + this.intervalMs);
            try {
              job.sample(job.needsTable ? table : undefined);
            } catch {
              // a sample is best effort: the next one may see the job
            }
          }),
        ),
      );
    } finally {
      this.sampling = false;
      this.schedule();
    }
  }
}

const samplers = new Map<number, Sampler>();

/** The sampler of jobs sampled every `intervalMs` (one per interval in use; the server uses one). */
export function samplerFor(intervalMs: number): Sampler {
  let sampler = samplers.get(intervalMs);
  if (!sampler) samplers.set(intervalMs, (sampler = new Sampler(intervalMs)));
  return sampler;
}
