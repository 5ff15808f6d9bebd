import { parseJobSpec, upstreamOf, type JobSpec } from '../domain/tasks/job-spec.js';
import type { JobState, TaskState } from '../domain/tasks/rules/index.js';
import { unblocksDependents } from '../domain/tasks/states.js';
import { freshJob, type Job, type JobStatus, type NewJob, type Task } from '../store/store.js';
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
  /** Deferred jobs by their resolver's key (job-spec.ts, StepJobSpec.key). */
  readonly byKey = new Map<string, LiveJob>();
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
    // The plan's order, then jobs added at run time (deferred jobs' expansions), in the store's order.
    const planned: string[] = Array.isArray(task.plan.jobs) ? (task.plan.jobs as string[]) : [];
    const inPlan = new Set(planned);
    const rows = new Map(jobs.map((j) => [j.id, j]));
    for (const id of [...planned, ...jobs.map((j) => j.id).filter((id) => !inPlan.has(id))]) {
      const job = rows.get(id);
      if (!job) continue;
      this.index({ job, spec: parseJobSpec(job.spec), dependents: [], waitingOn: 0 });
    }
    for (const entry of this.jobs) {
      this.wire(entry, upstreamOf(entry.spec));
      this.count(entry, undefined, entry.job.status);
    }
  }

  /** A job added at run time (a deferred job's expansion), in the state it starts in. */
  addJob(added: NewJob): LiveJob {
    const job = freshJob(added, Date.now() / 1000);
    const entry: LiveJob = { job, spec: parseJobSpec(job.spec), dependents: [], waitingOn: 0 };
    this.index(entry);
    this.wire(entry, upstreamOf(entry.spec));
    this.count(entry, undefined, job.status);
    return entry;
  }

  /** A job's spec changed (a deferred job resolved): the jobs it waits for now (an expansion's) are wired to it. */
  respec(entry: LiveJob): void {
    const before = new Set(upstreamOf(entry.spec));
    entry.spec = parseJobSpec(entry.job.spec);
    this.wire(
      entry,
      upstreamOf(entry.spec).filter((id) => !before.has(id)),
    );
  }

  private index(entry: LiveJob): void {
    this.jobs.push(entry);
    this.byId.set(entry.job.id, entry);
    if (entry.spec.kind === 'step') this.byKey.set(entry.spec.key, entry);
  }

  /** `entry` waits for these jobs (those of the task: a dep of another task is no dep). */
  private wire(entry: LiveJob, upstream: readonly string[]): void {
    for (const dep of upstream) {
      const job = this.byId.get(dep);
      if (!job) continue;
      job.dependents.push(entry);
      if (!unblocksDependents(job.job.status)) entry.waitingOn++;
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
