import { isUnresolvedStep } from '../domain/tasks/job-spec.js';
import { DISPATCHING_TASK_STATES } from '../domain/tasks/states.js';
import { makeJobDirectories } from './job-runner.js';
import type { Layout } from './layout.js';
import type { LiveJob, LiveTask } from './live-task.js';
import type { Running, Slots } from './slots.js';
import type { WaitNotes } from './wait-notes.js';
import type { StateWriter } from './writer.js';

/**
 * Which queued jobs start, and when (docs/operating.md, "Workers"). Jobs run as soon as their upstream jobs have
 * succeeded and this worker has the CPU and memory their tools ask for: oldest task first, and a job that does not
 * fit lets smaller ones pass. A tool job may first be looked up in the call cache without holding a slot. Only
 * tasks with queued jobs are looked at, so that a pass costs in proportion to what is ready, not to all that is held.
 */

/** How many working directories of waiting jobs may be in the making at once (see prepareAhead). */
const PREPARE_AHEAD = 4;
/** How many queued jobs may be looked up in the call cache at once, ahead of their start. */
const MAX_PROBES = 8;
/** How many deferred jobs may be resolved (or gathered) at once: their expressions share the sandbox's few workers. */
const MAX_RESOLVING = 16;

/** A job chosen to run (or to be followed, or looked up in the call cache), with the slots it holds. */
export interface Start {
  live: LiveTask;
  entry: LiveJob;
  run: Running;
  /** The handle of a job an earlier owner started, to wait for instead of starting one. */
  adopt?: string;
}

/** What the scheduler asks of the worker about the tasks it holds. */
export interface SchedulerHost {
  /** Whether the worker still holds this task (it was not given up, lost or deleted meanwhile). */
  held(live: LiveTask): boolean;
  /** Whether a DELETE of the task is being carried out (nothing more of it starts). */
  deleting(taskId: string): boolean;
  /** Whether the lease is good for half its time yet by this process's clock (see dispatch). */
  leaseYoung(live: LiveTask): boolean;
  /** Whether the call cache is to be asked about this job before it runs (its task's and tool's choice). */
  cacheWanted(live: LiveTask, entry: LiveJob): boolean;
}

export class Scheduler {
  /** Tasks that may have queued jobs to start (dispatch looks at these only; it keeps those still waiting). */
  private readonly waiting = new Set<LiveTask>();
  /** Chosen to start at once; to start once the pass's writes are committed; to be looked up in the call cache. */
  readonly startNow: Start[] = [];
  readonly startAfterWrite: Start[] = [];
  readonly probes: Start[] = [];
  /**
   * Deferred jobs to ask their resolver about (job-spec.ts, StepJobSpec), and deferred jobs whose expansion has
   * ended, to gather: neither holds CPU or memory, and both count as running here meanwhile.
   */
  readonly resolves: Start[] = [];
  readonly gathers: Start[] = [];
  /** Jobs being looked up in the call cache. */
  private probing = 0;
  /** Deferred jobs being resolved or gathered. */
  private resolving = 0;
  /**
   * Jobs whose directories have been made (or are being made) ahead of their start, by task: true when they
   * were made from nothing (see makeJobDirectories).
   */
  private readonly prepared = new Map<string, Map<string, Promise<boolean>>>();
  /** Those still being made, so that a task's files are removed only after them. */
  private readonly preparing = new Map<string, Promise<boolean>>();

  constructor(
    private readonly slots: Slots,
    private readonly writer: StateWriter,
    private readonly layout: Layout,
    private readonly host: SchedulerHost,
    /** Where a queued job that does not fit says what it waits for (none: it says nothing). */
    private readonly waits?: WaitNotes,
  ) {}

  /** The task has queued jobs (a job became queued, the task was claimed or its start time came). */
  enqueue(live: LiveTask): void {
    this.waiting.add(live);
  }

  /**
   * A job whose start did not happen goes back to the queue as it was: the attempt its start counted (an adopted
   * job's start counts none) is taken back.
   */
  requeue(live: LiveTask, entry: LiveJob, counted = true): void {
    if (counted) entry.job.attempt--;
    live.unmarkStarting(entry);
    this.waiting.add(live);
  }

  /** Follow a job an earlier owner started: it holds its slots from now, and is followed after the next write. */
  adopt(live: LiveTask, entry: LiveJob, handle: string): void {
    const run = this.slots.reserve(live, entry, this.slots.cpuOf(entry), this.slots.memOf(entry));
    this.startAfterWrite.push({ live, entry, run, adopt: handle });
  }

  /** A lookup in the call cache ended. */
  probed(): void {
    this.probing--;
  }

  /** A deferred job the worker was resolving is queued again, to start as the run it resolved into (or as it was). */
  ready(live: LiveTask, entry: LiveJob): void {
    live.unmarkStarting(entry);
    this.waiting.add(live);
  }

  /** Gather the outputs of the jobs a deferred job added (they have ended): launched with the next pass. */
  gather(live: LiveTask, entry: LiveJob): void {
    this.resolving++;
    this.gathers.push({ live, entry, run: this.slots.reserve(live, entry, 0, 0) });
  }

  /** A resolution or a gathering ended. */
  resolved(): void {
    this.resolving--;
  }

  /** Start queued jobs while resources allow, oldest task first. */
  dispatch(): void {
    const candidates = [...this.waiting].filter((live) => this.host.held(live) && live.queued.size > 0);
    this.waiting.clear();
    candidates.sort((a, b) => a.task.createdAt - b.task.createdAt);
    for (const live of candidates) {
      // A task being deleted starts nothing more: the deletion kills the jobs that ran when it began, and a job
      // started in a slot one of them freed would write into the task's directory after its removal.
      if (live.task.stopRequested || live.failed || this.host.deleting(live.task.id) || !DISPATCHING_TASK_STATES.includes(live.task.status)) continue;
      for (const entry of [...live.queued]) {
        if (entry.notBefore !== undefined && entry.notBefore > Date.now()) continue; // a retry waiting out its backoff
        if (isUnresolvedStep(entry.spec)) {
          this.resolve(live, entry);
          continue;
        }
        if (this.probe(live, entry)) continue;
        const cpu = this.slots.cpuOf(entry);
        const memMb = this.slots.memOf(entry);
        if (!this.slots.fits(cpu, memMb)) {
          this.prepareAhead(live, entry);
          this.waits?.resources(live, entry, { cpu, memMb }, { cpus: this.slots.freeCpus, memMb: this.slots.freeMemMb });
          continue;
        }
        live.markStarting(entry);
        const attempt = entry.job.attempt + 1;
        entry.job.attempt = attempt;
        const start = { live, entry, run: this.slots.reserve(live, entry, cpu, memMb) };
        if (this.host.leaseYoung(live)) {
          // The lease is good for at least half its time by this process's clock, which runs out before the
          // database's (the worker's heartbeat and poll): nobody else can hold the task before this worker gives it
          // up, so the job starts now, and its start (with the attempt) is written with the next pass.
          this.startNow.push(start);
        } else {
          // Renewals are late: write the attempt (checked against the lease) before anything runs.
          const patch = { attempt, reason: `starting attempt ${attempt}` };
          this.writer.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch, expect: ['queued'] });
          this.startAfterWrite.push(start);
        }
      }
      // Jobs that did not fit wait for the next job to end.
      if (live.queued.size > 0) this.waiting.add(live);
    }
  }

  /**
   * Look a queued tool job up in the call cache before it gets a CPU slot: a hit is done without waiting behind
   * running jobs, a miss goes back to the queue with its key (and runs without looking again). A few at a time;
   * the job holds no CPU or memory meanwhile, but counts as running here, so that a stop, a deletion or a shutdown
   * waits for it as for any job. Only while the lease is young, as a start. Returns whether the job is looked up.
   */
  private probe(live: LiveTask, entry: LiveJob): boolean {
    const spec = entry.spec;
    // A TES task's job stores its outputs itself, hit or not (job-runner.ts): it is looked up when it runs.
    if (spec.kind !== 'tool' || spec.callCaching === false || entry.probe !== undefined || spec.tes) return false;
    // Cheap checks first: dispatch asks this of every queued job in every pass.
    if (this.probing >= MAX_PROBES || !this.host.leaseYoung(live) || !this.host.cacheWanted(live, entry)) return false;
    live.markStarting(entry);
    entry.job.attempt++;
    this.probing++;
    this.probes.push({ live, entry, run: this.slots.reserve(live, entry, 0, 0) });
    return true;
  }

  /**
   * Ask a queued deferred job's resolver what it is, without holding a slot (its answer is written like a job's end):
   * a few at a time, only while the lease is young, as a start. A job passed over now is asked at a later pass.
   */
  private resolve(live: LiveTask, entry: LiveJob): void {
    if (this.resolving >= MAX_RESOLVING || !this.host.leaseYoung(live)) return;
    live.markStarting(entry);
    this.resolving++;
    this.resolves.push({ live, entry, run: this.slots.reserve(live, entry, 0, 0) });
  }

  /**
   * Make the working directory of a job that waits for a free slot, so that its start does not wait for the file
   * system (creating directories is the slow part of starting a short job). A few at a time, through libuv's
   * thread pool, while other jobs run; a failure here is left for the start to report.
   */
  private prepareAhead(live: LiveTask, entry: LiveJob): void {
    if (entry.spec.kind !== 'tool' || this.preparing.size >= PREPARE_AHEAD) return;
    const taskId = live.task.id;
    const jobs = this.prepared.get(taskId) ?? new Map<string, Promise<boolean>>();
    if (jobs.has(entry.job.id)) return;
    const made = makeJobDirectories(entry.spec, this.layout.workDir(taskId, entry.spec.nodeId)).catch(() => false);
    jobs.set(entry.job.id, made);
    this.prepared.set(taskId, jobs);
    this.preparing.set(entry.job.id, made);
    void made.finally(() => this.preparing.delete(entry.job.id));
  }

  /** The job's directories as made ahead, if they were (taken: a later start makes its own). */
  takeMadeAhead(live: LiveTask, entry: LiveJob): Promise<boolean> | undefined {
    const jobs = this.prepared.get(live.task.id);
    const made = jobs?.get(entry.job.id);
    jobs?.delete(entry.job.id);
    return made;
  }

  /** The task is no longer held here. */
  forget(taskId: string): void {
    this.prepared.delete(taskId);
  }

  /** Settles when no directory is being made ahead (a task's files are removed only after, or one would reappear). */
  async settled(): Promise<void> {
    await Promise.all(this.preparing.values());
  }
}
