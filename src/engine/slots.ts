import { runOf } from '../domain/tasks/job-spec.js';
import type { KillReason } from '../domain/tasks/rules/index.js';
import type { LiveJob, LiveTask } from './live-task.js';

/** A job this worker runs, is starting or is looking up in the call cache: it holds its CPU and memory till it ends. */
export interface Running {
  taskId: string;
  cpu: number;
  memMb: number;
  controller: AbortController;
  /** Settles when the job has ended and its outcome is recorded in memory. */
  done: Promise<void>;
}

/** The worker's CPU slots and memory, and the jobs holding them. */
export class Slots {
  /** By job id: what the rules see as running here (rules/state.ts, RunningHere). */
  readonly running = new Map<string, Running>();
  freeCpus: number;
  freeMemMb: number;

  constructor(
    readonly cpus: number,
    readonly memoryMb: number,
  ) {
    this.freeCpus = cpus;
    this.freeMemMb = memoryMb;
  }

  /** The CPU slots a job takes: its tool's (or its run's, for a deferred job), capped by the worker's; a data step takes none. */
  cpuOf(entry: LiveJob): number {
    const cpu = entry.spec.kind === 'tool' ? entry.spec.cpu : runOf(entry.spec)?.cpu;
    return cpu === undefined ? 0 : Math.min(Math.max(cpu, 1), this.cpus);
  }

  /** The memory of the job's next attempt: the tool's, or more after an attempt ran out of it (job-rules.ts, retryOf). */
  memOf(entry: LiveJob): number {
    return entry.spec.kind === 'tool' || runOf(entry.spec) ? Math.min(entry.job.memMb, this.memoryMb) : 0;
  }

  fits(cpu: number, memMb: number): boolean {
    return cpu <= this.freeCpus && memMb <= this.freeMemMb;
  }

  /** Hold a job's CPU and memory from now until it has ended. */
  reserve(live: LiveTask, entry: LiveJob, cpu: number, memMb: number): Running {
    const run: Running = { taskId: live.task.id, cpu, memMb, controller: new AbortController(), done: Promise.resolve() };
    this.running.set(entry.job.id, run);
    this.freeCpus -= cpu;
    this.freeMemMb -= memMb;
    live.jobsHere++;
    if (cpu > 0) live.toolJobsHere++;
    return run;
  }

  free(live: LiveTask, entry: LiveJob, run: Running): void {
    if (this.running.get(entry.job.id) === run) this.running.delete(entry.job.id);
    this.freeCpus += run.cpu;
    this.freeMemMb += run.memMb;
    live.jobsHere--;
    if (run.cpu > 0) live.toolJobsHere--;
  }

  /** Abort a job's run, if it runs here. */
  kill(jobId: string, reason: KillReason): void {
    this.running.get(jobId)?.controller.abort(reason);
  }

  /** The runs of one task. */
  of(taskId: string): Running[] {
    return [...this.running.values()].filter((r) => r.taskId === taskId);
  }
}
