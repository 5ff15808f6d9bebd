import { parseJobSpec, type JobSpec } from '../domain/tasks/job-spec.js';
import type { JobState, TaskState } from '../domain/tasks/rules/index.js';
import { unblocksDependents } from '../domain/tasks/states.js';
import type { Job, JobStatus, Task } from '../store/store.js';
import type { CacheProbe } from './job-runner.js';

/**
 * A task this worker holds, with its jobs and the bookkeeping that lets a scheduling pass look only at what
 * changed: which jobs are queued, how many upstream jobs each one still waits for, who waits for whom. It is the
 * state the rules read (rules/state.ts, TaskState); the rules' decisions change it (effects.ts).
 */

export interface LiveJob extends JobState {
  job: Job;
  spec: JobSpec;
  /** Jobs that list this one among their deps. */
  dependents: LiveJob[];
  /** How many of its deps have not succeeded yet. */
  waitingOn: number;
  /** A retry waits until then (ms, this process's clock) before it starts. */
  notBefore?: number;
  /** What the call cache said when the engine looked it up ahead (a miss: the job runs with this key). */
  probe?: CacheProbe;
  /** When its reason last became a wait (ms), and the numbers of its last resource wait (wait-notes.ts). */
  waitNotedAt?: number;
  resourceWait?: { cpu: number; memMb: number; freeCpus: number; freeMemMb: number; text: string };
}

export class LiveTask implements TaskState {
  readonly jobs: LiveJob[] = [];
  readonly byId = new Map<string, LiveJob>();
  /** Queued jobs not started yet, in the order they became ready. */
  readonly queued = new Set<LiveJob>();
  /** Queued jobs this worker is starting (their start is being written, or their process is being spawned). */
  readonly starting = new Set<LiveJob>();
  /** How many of its jobs this worker runs or is starting, and how many of those take CPU (tool jobs). */
  jobsHere = 0;
  toolJobsHere = 0;
  /** The first job found failed, if any. */
  failed: LiveJob | undefined;
  /** How many of its jobs have succeeded (or are in another state that lets the jobs after them run). */
  private done = 0;
  /**
   * When the last lease grant or renewal this worker knows of was asked for (ms, this process's clock): the lease
   * ends no earlier than that plus its length, by any clock that runs no faster than this one.
   */
  leaseAskedAt: number;
  /** When this worker learnt that it holds the task (ms): a renewal asked for later must find it. */
  readonly heldSince = Date.now();

  constructor(
    public task: Task,
    jobs: Job[],
    leaseAskedAt: number,
  ) {
    this.leaseAskedAt = leaseAskedAt;
    const order: string[] = Array.isArray(task.plan.jobs) ? (task.plan.jobs as string[]) : jobs.map((j) => j.id);
    const rows = new Map(jobs.map((j) => [j.id, j]));
    for (const id of order) {
      const job = rows.get(id);
      if (!job) continue;
      const entry: LiveJob = { job, spec: parseJobSpec(job.spec), dependents: [], waitingOn: 0 };
      this.jobs.push(entry);
      this.byId.set(id, entry);
    }
    for (const entry of this.jobs) {
      for (const dep of entry.spec.deps) {
        const upstream = this.byId.get(dep);
        if (!upstream) continue;
        upstream.dependents.push(entry);
        if (!unblocksDependents(upstream.job.status)) entry.waitingOn++;
      }
      this.count(entry, undefined, entry.job.status);
    }
  }

  get allSucceeded(): boolean {
    return this.done === this.jobs.length;
  }

  /** A job's status was changed from `from` (effects.ts): keep the indexes right. */
  statusChanged(entry: LiveJob, from: JobStatus): void {
    const status = entry.job.status;
    this.count(entry, from, status);
    if (!unblocksDependents(status) || unblocksDependents(from)) return;
    for (const dependent of entry.dependents) dependent.waitingOn--;
  }

  /** A queued job is being started: dispatch passes it over until it runs or goes back to the queue. */
  markStarting(entry: LiveJob): void {
    this.queued.delete(entry);
    this.starting.add(entry);
  }

  /** Its start did not happen (the task was stopped, or the write failed): queued again, if still queued. */
  unmarkStarting(entry: LiveJob): void {
    this.starting.delete(entry);
    if (entry.job.status === 'queued') this.queued.add(entry);
  }

  private count(entry: LiveJob, from: JobStatus | undefined, to: JobStatus): void {
    if (from === 'queued') {
      this.queued.delete(entry);
      this.starting.delete(entry);
    }
    if (from !== undefined && unblocksDependents(from)) this.done--;
    if (to === 'queued') this.queued.add(entry);
    if (unblocksDependents(to)) this.done++;
    if (to === 'failed' && !this.failed) this.failed = entry;
  }
}
