import { rm } from 'node:fs/promises';
import { JobSpecError } from '../domain/tasks/job-spec.js';
import { provenanceOf } from '../domain/tasks/outputs.js';
import { JOB_TRANSITIONS, TASK_TRANSITIONS, TERMINAL_JOB_STATES, TERMINAL_TASK_STATES } from '../domain/tasks/states.js';
import type { DataStore } from '../data/index.js';
import type { JobAttempt, JobPatch, JobStatus, Json, Store, Task, TaskPatch, TaskStatus, WorkEvent } from '../store/store.js';
import { backoffBefore, DEFAULT_RETRY_POLICY, failureKind, nextMemory, readRetryPolicy, type RetryOn, type RetryPolicy } from '../domain/tools/retry-policy.js';
import { parseSizeMb } from '../domain/tools/definition.js';
import { CallCache, type CacheContext } from './call-cache.js';
import type { Executor } from './executors/executor.js';
import { makeJobDirectories, probeCache, runJob, type CacheProbe, type RunResult } from './job-runner.js';
import type { Layout } from './layout.js';
import { LiveTask, type LiveJob } from './live-task.js';
import { PendingChanges } from './pending-changes.js';
import { WaitNotes } from './wait-notes.js';
import { prepareTasksRoot } from './tasks-root.js';
import { expireDeadLocalWorkers } from './worker-id.js';

/**
 * The worker: claims tasks through the store and drives them to their end (docs/operating.md, "Workers").
 *
 * Its state is the store. A worker holds a task while its lease lives (renewed by heartbeat) and writes the task's
 * state only while it holds it: every write is checked against the lease in the same transaction. It starts a job
 * only while its own clock says the lease is good for a while yet (that clock's deadline comes before the database's,
 * after which another worker may take the task), and kills the task's jobs itself when renewals fail until that
 * deadline: so two workers never run the same job. What it keeps in memory is
 * a copy of the tasks it holds, which any worker can rebuild from the store: a take-over after a worker died, a
 * restart and a claim of a new task are the same code.
 *
 * Jobs run as soon as their upstream jobs have succeeded and this worker has the CPU and memory their tools ask
 * for (oldest task first; a job that does not fit lets smaller ones pass). A worker claims more tasks only when it
 * has room and nothing it holds is waiting for room, so it holds (and keeps in memory) only what it can run soon.
 */

export interface EngineOptions {
  store: Store;
  dataStore: DataStore;
  executor: Executor;
  layout: Layout;
  /** This worker's name in the store (lease owner); unique among live workers. */
  workerId: string;
  /** CPU slots and memory (MiB) handed out to jobs. */
  cpus: number;
  memoryMb: number;
  jobTimeoutSeconds: number;
  /** How long a lease lasts without renewal (s): a dead worker's tasks are taken over after this. Default 15. */
  leaseSeconds?: number;
  /** How often to look for new work and for stop and delete requests (ms). Default 500. */
  pollIntervalMs?: number;
  /** Most tasks held at once. Default max(16, 4 × cpus). */
  maxTasks?: number;
  /** How many times a job may be found running by a new owner (its worker died) before it is failed. */
  maxRestarts?: number;
  /** The retry policy of tools that have none (docs/tasks.md, "Retries"). Default DEFAULT_RETRY_POLICY. */
  retry?: RetryPolicy;
  /** Whether jobs may be satisfied from the call cache (docs/tasks.md, "Call caching"). Default true. */
  callCaching?: boolean;
  /** Whether a task that succeeded loses its intermediate outputs, when the task does not say. Default false. */
  cleanupIntermediates?: boolean;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
  /** Told of every job this worker ran when it ends, however it ended (for the metrics). */
  onJobEnded?: (result: RunResult) => void;
}

/** Why a job's run was aborted. */
type AbortReason = 'stop' | 'fail-fast' | 'shutdown' | 'lost';

interface Running {
  taskId: string;
  cpu: number;
  memMb: number;
  controller: AbortController;
  /** Settles when the job has ended and its outcome is recorded in memory. */
  done: Promise<void>;
}

interface Start {
  live: LiveTask;
  entry: LiveJob;
  run: Running;
  /** The handle of a job an earlier owner started, to wait for instead of starting one. */
  adopt?: string;
}

const now = () => Date.now() / 1000;
/** How many forgotten task ids are remembered (see Engine.forgotten). */
const MAX_FORGOTTEN = 10_000;
/** How many working directories of waiting jobs may be in the making at once (see prepareAhead). */
const PREPARE_AHEAD = 4;
/** Most tasks claimed in one go. */
const CLAIM_BATCH = 16;
/** How many queued jobs may be looked up in the call cache at once, ahead of their start (see probe). */
const MAX_PROBES = 8;
const isTerminalJob = (status: JobStatus) => TERMINAL_JOB_STATES.includes(status);
const isTerminalTask = (status: TaskStatus) => TERMINAL_TASK_STATES.includes(status);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Engine {
  private readonly store: Store;
  private readonly calls: CallCache;
  private readonly owner: string;
  private readonly leaseSeconds: number;
  private readonly maxTasks: number;
  /** The tasks this worker holds, in the order it claimed them (oldest first, as the store hands them out). */
  private readonly tasks = new Map<string, LiveTask>();
  /** Tasks given up or deleted: a job of theirs that ends afterwards must not write anything. */
  private readonly forgotten = new Set<string>();
  /** Tasks something happened to since the last pass: only these are looked at again. */
  private readonly dirty = new Set<string>();
  /** Jobs this worker runs or is starting, by job id (they hold their CPU and memory). */
  private readonly running = new Map<string, Running>();
  private readonly deleting = new Set<string>();
  /** Tasks that may have queued jobs to start (dispatch looks at these only; it keeps those still waiting). */
  private readonly ready = new Set<LiveTask>();
  private freeCpus: number;
  private freeMemMb: number;
  private pending = new PendingChanges();
  /** What queued jobs wait for, written into their reasons when it changes (wait-notes.ts). */
  private readonly waits = new WaitNotes(
    (live, entry, reason) => {
      entry.job.reason = reason;
      this.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch: { reason }, expect: [entry.job.status] });
    },
    () => this.wake(),
  );
  private writing: Promise<void> | undefined;
  private nextWrite: Promise<void> | undefined;
  /** Jobs to start once the pass's writes are committed, and jobs to start at once (see dispatch). */
  private starts: Start[] = [];
  private startsNow: Start[] = [];
  private passRunning = false;
  /** Jobs being looked up in the call cache ahead of their start (see probe). */
  private probing = 0;
  private passAgain = false;
  private claiming = false;
  private claimAgain = false;
  private polling = false;
  /** Capacity was freed (a job ended, a task was done): see whether there is more work after this pass. */
  private claimSoon = false;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;
  private stopped = true;
  private draining = false;
  /** Set when a job ends, so that a drain can wait for the last one. */
  private jobEnded: (() => void) | undefined;

  constructor(private readonly options: EngineOptions) {
    this.store = options.store;
    this.calls = new CallCache(options.store, options.dataStore, options.layout);
    this.owner = options.workerId;
    this.leaseSeconds = options.leaseSeconds ?? 15;
    this.maxTasks = options.maxTasks ?? Math.max(16, 4 * options.cpus);
    this.freeCpus = options.cpus;
    this.freeMemMb = options.memoryMb;
  }

  /** What /healthz shows of this worker. */
  status() {
    return {
      worker: this.owner,
      draining: this.draining,
      tasks: this.tasks.size,
      jobs: this.running.size,
      free_cpus: this.freeCpus,
      free_memory_mb: this.freeMemMb,
      queued_jobs: this.queuedJobs(),
    };
  }

  /** Jobs of the tasks held here that wait for a free slot. */
  private queuedJobs(): number {
    let queued = 0;
    for (const live of this.tasks.values()) queued += live.queued.size;
    return queued;
  }

  private log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(level, message, { worker: this.owner, ...fields });
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.options.executor.check();
    const tasksRoot = await prepareTasksRoot(this.options.layout.tasksRoot);
    if (!tasksRoot.marked) this.log('info', 'the tasks directory keeps the default placement of new directories', { why: tasksRoot.why });
    const dead = await expireDeadLocalWorkers(this.store);
    if (dead.length > 0) this.log('info', 'took over the tasks of workers of this machine that are gone', { workers: dead });
    this.unsubscribe = this.store.events.subscribe((event) => this.onEvent(event));
    const every = (ms: number, fn: () => Promise<void>, what: string) => {
      const timer = setInterval(() => void fn().catch((error: unknown) => this.log('error', `${what} failed`, { error: String(error) })), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.pollIntervalMs ?? 500, () => this.poll(), 'polling the store');
    every((this.leaseSeconds * 1000) / 3, () => this.heartbeat(), 'renewing leases');
    this.maybeClaim();
  }

  /**
   * Stop claiming and starting jobs; let running jobs finish for up to `drainMs`, then kill the rest (they run
   * again wherever their task goes next) and give up every lease, so that other workers continue at once.
   */
  async drain(drainMs: number): Promise<void> {
    if (this.stopped) return;
    this.draining = true;
    this.log('info', 'draining', { jobs: this.running.size, seconds: drainMs / 1000 });
    const deadline = Date.now() + drainMs;
    while (this.running.size > 0 && Date.now() < deadline) {
      await Promise.race([new Promise<void>((resolve) => (this.jobEnded = resolve)), sleep(Math.min(1000, deadline - Date.now()))]);
    }
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.waits.close();
    this.unsubscribe?.();
    const left = [...this.running.values()];
    for (const run of left) run.controller.abort('shutdown' satisfies AbortReason);
    await Promise.all(left.map((run) => run.done));
    for (const live of [...this.tasks.values()]) this.retire(live);
    await this.flush();
    await this.options.executor.close?.();
  }

  /** Stop now: as a drain that waits for nothing. */
  stop(): Promise<void> {
    return this.drain(0);
  }

  private onEvent(event: WorkEvent): void {
    if (this.stopped) return;
    const live = this.tasks.get(event.taskId);
    if (event.kind === 'task') this.maybeClaim();
    else if (live && event.kind === 'stop') this.noteStop(live);
    else if (live && event.kind === 'delete') void this.deleteHeld(live);
  }

  /** Something changed (a job ended, a stop was asked): look again now. */
  private wake(taskId?: string): void {
    if (taskId !== undefined) this.dirty.add(taskId);
    if (this.stopped) return;
    if (this.passRunning) {
      this.passAgain = true;
      return;
    }
    this.passRunning = true;
    void this.pass()
      .catch((error: unknown) => this.log('error', 'scheduling pass failed', { error: error instanceof Error ? error.stack : String(error) }))
      .finally(() => {
        this.passRunning = false;
        if (this.passAgain) {
          this.passAgain = false;
          this.wake();
        }
      });
  }

  // ---- claiming, heartbeats, requests ---------------------------------------------------------------

  /** Claim more tasks when there is room and nothing held is waiting for room. */
  private maybeClaim(): void {
    if (this.stopped || this.draining) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    const room = this.maxTasks - this.tasks.size;
    if (room <= 0 || this.freeCpus <= 0 || this.freeMemMb <= 0 || this.wantsRoom()) return;
    const limit = Math.min(room, this.freeCpus, CLAIM_BATCH);
    this.claiming = true;
    const askedAt = Date.now();
    void this.store
      .claimTasks(this.owner, limit, this.leaseSeconds)
      .then(async (claimed) => {
        for (const task of claimed) await this.load(task, askedAt);
        // A full batch: there may be more, and room for them.
        if (claimed.length === limit) this.claimAgain = true;
        if (claimed.length > 0) this.wake();
      })
      .catch((error: unknown) => this.log('error', 'claiming tasks failed', { error: String(error) }))
      .finally(() => {
        this.claiming = false;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.maybeClaim();
        }
      });
  }

  /**
   * Whether a task held here will want CPU soon: a job of it waits for room, or none of its tool jobs runs yet (it
   * was just claimed, or is between steps). Claiming more then would take work other workers could start now.
   */
  private wantsRoom(): boolean {
    for (const live of this.tasks.values()) {
      if (live.task.stopRequested || isTerminalTask(live.task.status)) continue;
      if (live.queued.size > 0 || live.toolJobsHere === 0) return true;
    }
    return false;
  }

  /** Take up a claimed task: its jobs from the store, and what its previous owner left running. */
  private async load(task: Task, askedAt: number): Promise<void> {
    this.forgotten.delete(task.id);
    let live: LiveTask;
    try {
      live = new LiveTask(task, await this.store.listJobs(task.id), askedAt);
    } catch (error) {
      if (!(error instanceof JobSpecError)) throw error;
      // Written by another version or damaged: nothing of it can run here.
      this.log('error', 'a claimed task cannot be run', { task: task.id, error: error.message });
      const failed = isTerminalTask(task.status) ? [] : [{ id: task.id, patch: { status: 'failed' as const, reason: `cannot run: ${error.message}`, endedAt: now() } }];
      await this.store.applyChanges({ owner: this.owner, tasks: failed, release: [task.id] });
      return;
    }
    if (this.stopped) {
      await this.store.releaseTasks(this.owner, [task.id]);
      return;
    }
    this.tasks.set(task.id, live);
    const maxRestarts = this.options.maxRestarts ?? 3;
    for (const entry of live.jobs) {
      const { job } = entry;
      if (isTerminalJob(job.status)) continue;
      if (job.externalId !== null && this.options.executor.adopt && entry.spec.kind === 'tool') {
        // Its job may still be alive outside any worker (a Slurm job, a container): wait for it, do not run it again.
        const cpu = this.cpuOf(entry);
        const memMb = this.memOf(entry);
        this.starts.push({ live, entry, run: this.reserve(live, entry, cpu, memMb), adopt: job.externalId });
        this.log('info', 'adopting a job its previous worker started', { job: job.id, handle: job.externalId });
        continue;
      }
      if (job.status !== 'running') continue;
      // Its process died with its worker: run it again from scratch, unless that keeps happening.
      const lost: JobAttempt = { attempt: job.attempt, outcome: 'lost', exitCode: null, reason: 'its worker was lost while it ran', memMb: job.memMb, peakRssBytes: null, startedAt: job.startedAt, endedAt: now() };
      const attempts = [...job.attempts, lost];
      if (job.attempt >= maxRestarts) {
        this.setJob(live, entry, 'failed', `its worker was lost ${job.attempt} times while this job was running`, { endedAt: now(), attempts });
      } else {
        this.setJob(live, entry, 'queued', `runs again from scratch: its worker was lost while attempt ${job.attempt} was running`, { attempts });
      }
      this.log('warn', 'took over a job whose worker was lost while it ran', { job: job.id, status: job.status });
    }
    for (const entry of live.readyJobs()) this.setJob(live, entry, 'queued', 'upstream jobs succeeded');
    this.ready.add(live);
    this.dirty.add(task.id);
  }

  /** Renew every lease; a task whose lease could not be renewed is given up (someone else holds it now). */
  private async heartbeat(): Promise<void> {
    if (this.stopped || this.tasks.size === 0) return;
    const askedAt = Date.now();
    const held = new Set(await this.store.renewLeases(this.owner, this.leaseSeconds));
    for (const live of [...this.tasks.values()]) {
      if (held.has(live.task.id)) live.leaseAskedAt = Math.max(live.leaseAskedAt, askedAt);
      // A task claimed while the renewal was on its way may be missing from it: only older ones are lost.
      else if (live.leaseAskedAt < askedAt && live.heldSince < askedAt) this.abandon(live, 'its lease was taken over by another worker');
    }
  }

  /**
   * Give up tasks whose lease may have ended (the store could not be reached to renew it) before another worker
   * can take them over, then look for stop and delete requests and for new work.
   */
  private async poll(): Promise<void> {
    if (this.stopped || this.polling) return;
    this.polling = true;
    try {
      const margin = Math.min(2000, (this.leaseSeconds * 1000) / 4);
      for (const live of [...this.tasks.values()]) {
        if (Date.now() > live.leaseAskedAt + this.leaseSeconds * 1000 - margin) this.abandon(live, 'its lease could not be renewed in time');
      }
      if (this.tasks.size > 0) {
        for (const flags of await this.store.requestedTasks(this.owner)) {
          const live = this.tasks.get(flags.id);
          if (!live) continue;
          if (flags.deleteRequested) void this.deleteHeld(live);
          else if (flags.stopRequested) this.noteStop(live);
        }
      }
      this.maybeClaim();
    } finally {
      this.polling = false;
    }
  }

  private noteStop(live: LiveTask): void {
    if (live.task.stopRequested) return;
    live.task.stopRequested = true;
    this.wake(live.task.id);
  }

  /** Drop a task without writing anything more for it: its lease is gone, and its jobs here are killed. */
  private abandon(live: LiveTask, why: string): void {
    if (this.tasks.get(live.task.id) !== live) return;
    this.log('warn', 'gave up a task', { task: live.task.id, why });
    this.forget(live.task.id);
    for (const run of this.running.values()) if (run.taskId === live.task.id) run.controller.abort('lost' satisfies AbortReason);
    this.pending.dropTask(live.task.id);
  }

  private runsOf(taskId: string): Running[] {
    return [...this.running.values()].filter((r) => r.taskId === taskId);
  }

  private forget(taskId: string): void {
    this.tasks.delete(taskId);
    this.dirty.delete(taskId);
    this.prepared.delete(taskId);
    this.forgotten.add(taskId);
    if (this.forgotten.size > MAX_FORGOTTEN) this.forgotten.delete(this.forgotten.values().next().value!);
  }

  /** Carry out a DELETE: kill the task's jobs, remove its files, then its rows (the API waits for those to go). */
  private async deleteHeld(live: LiveTask): Promise<void> {
    const taskId = live.task.id;
    if (this.deleting.has(taskId) || this.tasks.get(taskId) !== live) return;
    this.deleting.add(taskId);
    try {
      // Nothing new starts for it meanwhile (dispatch passes over tasks being deleted); wait until none of its jobs
      // runs, including one whose start was under way.
      for (let runs = this.runsOf(taskId); runs.length > 0; runs = this.runsOf(taskId)) {
        for (const run of runs) run.controller.abort('stop' satisfies AbortReason);
        await Promise.all(runs.map((r) => r.done));
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.forget(taskId);
      this.pending.dropTask(taskId);
      await this.removeFiles(taskId);
      await this.store.deleteTask(taskId, this.owner);
      this.log('info', 'task deleted', { task: taskId });
    } catch (error) {
      this.log('error', 'deleting a task failed', { task: taskId, error: String(error) });
    } finally {
      this.deleting.delete(taskId);
    }
  }

  // ---- state changes ---------------------------------------------------------------------------------
  //
  // Changes are made in memory at once and written to the store together at the end of each scheduling pass:
  // one commit for all a pass decided, checked against the leases, and not waiting for the disk (docs/tasks.md,
  // "Recovery"). A job's process is started only after the write that records its start has committed.

  private setJob(live: LiveTask, entry: LiveJob, status: JobStatus, reason: string, extra: Omit<JobPatch, 'status' | 'reason'> = {}): void {
    if (!JOB_TRANSITIONS[entry.job.status].includes(status) && entry.job.status !== status) {
      this.log('error', 'job transition outside the state machine (docs/tasks.md)', { job: entry.job.id, from: entry.job.status, to: status });
    }
    Object.assign(entry.job, { reason, ...extra });
    const ready = live.setStatus(entry, status);
    if (status === 'queued') this.ready.add(live);
    this.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch: { status, reason, ...extra } });
    for (const next of ready) this.setJob(live, next, 'queued', 'upstream jobs succeeded');
  }

  private setTask(live: LiveTask, status: TaskStatus, reason: string, extra: Omit<TaskPatch, 'status' | 'reason'> = {}): void {
    if (!TASK_TRANSITIONS[live.task.status].includes(status)) {
      this.log('error', 'task transition outside the state machine (docs/tasks.md)', { task: live.task.id, from: live.task.status, to: status });
    }
    Object.assign(live.task, { status, reason, ...extra });
    this.pending.tasks.push({ id: live.task.id, patch: { status, reason, ...extra } });
    if (status === 'queued') this.ready.add(live); // a scheduled task's start time came
    if (isTerminalTask(status)) this.log('info', `task ${status}`, { task: live.task.id, name: live.task.name, reason });
  }

  /**
   * Write what is pending; tasks the store says this worker lost are given up. One write at a time: what becomes
   * pending while a write is under way goes in one next write, however many passes asked for it, so that the store's
   * round trips, not the passes, set how often the engine commits (on PostgreSQL a commit is several round trips).
   * Resolves when everything pending at the call is written.
   */
  private flush(): Promise<void> {
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
    // A store that cannot be reached is asked again: the leases' deadlines (poll) decide when to give up.
    for (let attempt = 0; ; attempt++) {
      try {
        const { lost } = await this.store.applyChanges({ ...batch.changes(), owner: this.owner, relaxed: true });
        for (const id of lost) {
          const live = this.tasks.get(id);
          if (live) this.abandon(live, 'another worker holds it now');
        }
        return;
      } catch (error) {
        const live = [...batch.taskIds()].filter((id) => this.tasks.has(id));
        this.log('error', 'writing task state failed', { error: String(error), attempt });
        if (live.length === 0 && batch.release.length === 0) return;
        await sleep(Math.min(5000, 100 * 2 ** attempt));
      }
    }
  }

  // ---- the scheduling pass -----------------------------------------------------------------------------

  private async pass(): Promise<void> {
    const t = now();
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const id of dirty) {
      const live = this.tasks.get(id);
      if (!live || this.deleting.has(id)) continue;
      this.advance(live, t);
      if ((isTerminalTask(live.task.status) || this.draining) && live.jobsHere === 0) this.retire(live);
    }
    this.dispatch();
    for (const start of this.startsNow.splice(0)) this.launch(start);
    const starts = this.starts.splice(0);
    // The pass does not wait for its writes unless a job's start must be written first: the next pass can run
    // (a job ended, another starts) while they are on their way.
    if (starts.length === 0) void this.flush();
    else {
      await this.flush();
      for (const start of starts) this.launch(start);
    }
    if (this.claimSoon) {
      this.claimSoon = false;
      this.maybeClaim();
    }
  }

  /** Done with a task (it ended, or this worker is shutting down): give up its lease with the next write. */
  private retire(live: LiveTask): void {
    this.pending.release.push(live.task.id);
    this.forget(live.task.id);
    // Room for another task (claimed after this write, which the claim queues behind).
    this.claimSoon = true;
  }

  /** Move one task forward: start time, stop requests, failures, the end. */
  private advance(live: LiveTask, t: number): void {
    const task = live.task;
    if (isTerminalTask(task.status)) return;
    const runningHere = (entry: LiveJob) => this.running.has(entry.job.id);

    if (task.stopRequested) {
      if (task.status === 'running') this.setTask(live, 'stopping', 'stop requested');
      for (const entry of live.unfinished()) {
        if (runningHere(entry)) this.running.get(entry.job.id)!.controller.abort('stop' satisfies AbortReason);
        else this.setJob(live, entry, 'cancelled', 'the task was stopped', { endedAt: entry.job.status === 'running' ? t : null });
      }
      if (!live.jobs.some(runningHere)) this.setTask(live, 'stopped', 'stopped by request', { endedAt: t });
      return;
    }

    if (task.status === 'scheduled') {
      if (task.scheduleAt !== null && task.scheduleAt > t) return;
      this.setTask(live, 'queued', 'start time reached');
    }

    if (live.failed) {
      // A node that fails fails its task: nothing else starts, running jobs are killed.
      const failed = live.failed.job;
      for (const entry of live.unfinished()) {
        if (runningHere(entry)) this.running.get(entry.job.id)!.controller.abort('fail-fast' satisfies AbortReason);
        else this.setJob(live, entry, 'cancelled', `not run: node ${failed.nodeId} failed`);
      }
      if (!live.jobs.some(runningHere)) this.setTask(live, 'failed', `node ${failed.nodeId} (${failed.name}) failed: ${failed.reason}`, { endedAt: t });
      return;
    }

    if (live.allSucceeded) {
      this.setTask(live, 'succeeded', `all ${live.jobs.length} jobs succeeded`, { endedAt: t, ...(task.startedAt === null ? { startedAt: t } : {}) });
      const cleanup = live.task.plan.cleanup_intermediates;
      if (typeof cleanup === 'boolean' ? cleanup : this.options.cleanupIntermediates === true) this.removeIntermediates(live);
    }
  }

  private cpuOf(entry: LiveJob): number {
    return entry.spec.kind === 'tool' ? Math.min(Math.max(entry.spec.cpu, 1), this.options.cpus) : 0;
  }

  /** The memory of the job's next attempt: the tool's, or more after an attempt ran out of it (see retry). */
  private memOf(entry: LiveJob): number {
    return entry.spec.kind === 'tool' ? Math.min(entry.job.memMb, this.options.memoryMb) : 0;
  }

  /**
   * Start queued jobs while resources allow, oldest task first. Only tasks with queued jobs are looked at, so that a
   * pass costs in proportion to what is ready, not to everything held.
   */
  private dispatch(): void {
    if (this.stopped || this.draining) return;
    const candidates = [...this.ready].filter((live) => this.tasks.get(live.task.id) === live && live.queued.size > 0);
    this.ready.clear();
    candidates.sort((a, b) => a.task.createdAt - b.task.createdAt);
    for (const live of candidates) {
      // A task being deleted starts nothing more: deleteHeld kills the jobs that ran when the deletion began, and a
      // job started in a slot one of them freed would write into the task's directory after its removal.
      if (live.task.stopRequested || live.failed || this.deleting.has(live.task.id) || !['queued', 'running'].includes(live.task.status)) continue;
      for (const entry of [...live.queued]) {
        if (entry.notBefore !== undefined && entry.notBefore > Date.now()) continue; // a retry waiting out its backoff
        if (this.probe(live, entry)) continue;
        const cpu = this.cpuOf(entry);
        const memMb = this.memOf(entry);
        if (cpu > this.freeCpus || memMb > this.freeMemMb) {
          this.prepareAhead(live, entry);
          this.waits.resources(live, entry, { cpu, memMb }, { cpus: this.freeCpus, memMb: this.freeMemMb });
          continue;
        }
        live.markStarting(entry);
        const attempt = entry.job.attempt + 1;
        entry.job.attempt = attempt;
        const start = { live, entry, run: this.reserve(live, entry, cpu, memMb) };
        if (Date.now() < live.leaseAskedAt + (this.leaseSeconds * 1000) / 2) {
          // The lease is good for at least half its time by this process's clock, which runs out before the
          // database's (see heartbeat and poll): nobody else can hold the task before this worker gives it up, so
          // the job starts now, and its start (with the attempt) is written with the next pass.
          this.startsNow.push(start);
        } else {
          // Renewals are late: write the attempt (checked against the lease) before anything runs.
          this.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch: { attempt, reason: `starting attempt ${attempt}` }, expect: ['queued'] });
          this.starts.push(start);
        }
      }
      // Jobs that did not fit wait for the next job to end.
      if (live.queued.size > 0) this.ready.add(live);
    }
  }

  /**
   * Look a queued tool job up in the call cache before it gets a CPU slot: a hit is done without waiting behind
   * running jobs, a miss goes back to the queue with its key (and runs without looking again). A few at a time;
   * the job holds no CPU or memory meanwhile, but counts as running here, so that a stop, a deletion or a shutdown
   * waits for it as for any job. Only while the lease is young, as a start (see dispatch). Returns whether the job
   * is being looked up.
   */
  private probe(live: LiveTask, entry: LiveJob): boolean {
    const spec = entry.spec;
    if (spec.kind !== 'tool' || spec.callCaching === false || entry.probe !== undefined) return false;
    // Cheap checks first: dispatch asks this of every queued job in every pass.
    if (this.probing >= MAX_PROBES || Date.now() >= live.leaseAskedAt + (this.leaseSeconds * 1000) / 2) return false;
    const context = this.cacheContext(live);
    if (!context.enabled && context.referenceTask === null) return false;
    live.markStarting(entry);
    entry.job.attempt++;
    const run = this.reserve(live, entry, 0, 0);
    this.probing++;
    const memMb = this.memOf(entry);
    run.done = probeCache(spec, {
      executor: this.options.executor,
      signal: run.controller.signal,
      taskId: live.task.id,
      jobId: entry.job.id,
      onStarted: (info) => this.started(live, entry, info, now()),
      onWaiting: (what) => this.waitedOutside(live, entry, what),
    }, { calls: this.calls, context })
      .catch((error: unknown): CacheProbe => {
        this.log('error', 'looking a job up in the call cache failed', { job: entry.job.id, error: String(error) });
        return {};
      })
      .then((probe) => {
        if (probe.result && this.tasks.get(live.task.id) === live) return this.finish(live, entry, probe.result, undefined, memMb);
        // A miss (or the task went away meanwhile): it runs later, with this key, without looking again.
        entry.probe = probe;
        this.notStarted(live, entry);
      })
      .catch((error: unknown) => this.log('error', 'recording a job result failed', { job: entry.job.id, error: String(error) }))
      .finally(() => {
        this.probing--;
        this.unreserve(live, entry, run);
      });
    return true;
  }

  /**
   * A job whose start did not happen goes back to the queue as it was: the attempt its start counted (an adopted
   * job's start counts none) is taken back.
   */
  private notStarted(live: LiveTask, entry: LiveJob, counted = true): void {
    if (counted) entry.job.attempt--;
    live.unmarkStarting(entry);
    this.ready.add(live);
  }

  /** Hold a job's CPU and memory from now until it has ended. */
  private reserve(live: LiveTask, entry: LiveJob, cpu: number, memMb: number): Running {
    const run: Running = { taskId: live.task.id, cpu, memMb, controller: new AbortController(), done: Promise.resolve() };
    this.running.set(entry.job.id, run);
    this.freeCpus -= cpu;
    this.freeMemMb -= memMb;
    live.jobsHere++;
    if (cpu > 0) live.toolJobsHere++;
    return run;
  }

  private unreserve(live: LiveTask, entry: LiveJob, run: Running): void {
    if (this.running.get(entry.job.id) === run) this.running.delete(entry.job.id);
    this.freeCpus += run.cpu;
    this.freeMemMb += run.memMb;
    live.jobsHere--;
    if (run.cpu > 0) live.toolJobsHere--;
    this.jobEnded?.();
    this.claimSoon = true;
    this.wake(live.task.id);
  }

  /**
   * Jobs whose directories have been made (or are being made) ahead of their start, by task: true when they
   * were made from nothing (see makeJobDirectories).
   */
  private readonly prepared = new Map<string, Map<string, Promise<boolean>>>();
  /** Those still being made, so that a task's files are removed only after them. */
  private readonly preparing = new Map<string, Promise<boolean>>();

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
    const made = makeJobDirectories(entry.spec, this.options.layout.workDir(taskId, entry.spec.nodeId)).catch(() => false);
    jobs.set(entry.job.id, made);
    this.prepared.set(taskId, jobs);
    this.preparing.set(entry.job.id, made);
    void made.finally(() => this.preparing.delete(entry.job.id));
  }

  /** Run a job whose start has been written (or adopt one an earlier owner started). */
  private launch({ live, entry, run, adopt }: Start): void {
    if (this.tasks.get(live.task.id) !== live || run.controller.signal.aborted || this.stopped) {
      // Stopped, lost or shutting down between the decision and the write: it did not start.
      this.notStarted(live, entry, adopt === undefined);
      this.unreserve(live, entry, run);
      return;
    }
    const madeAhead = this.prepared.get(live.task.id)?.get(entry.job.id);
    this.prepared.get(live.task.id)?.delete(entry.job.id);
    run.done = runJob(entry.spec, {
      taskId: live.task.id,
      jobId: entry.job.id,
      layout: this.options.layout,
      dataStore: this.options.dataStore,
      executor: this.options.executor,
      cpu: run.cpu,
      memMb: run.memMb,
      timeoutSeconds: this.options.jobTimeoutSeconds,
      signal: run.controller.signal,
      onStarted: (info) => this.started(live, entry, info, now()),
      onWaiting: (what) => this.waitedOutside(live, entry, what),
      cache: { calls: this.calls, context: this.cacheContext(live), ...(entry.probe ? { probed: entry.probe } : {}) },
      ...(adopt !== undefined ? { adopt } : {}),
      ...(madeAhead ? { madeAhead } : {}),
    })
      .then((result) => this.finish(live, entry, result, run.controller.signal.reason as AbortReason | undefined, run.memMb))
      .catch((error: unknown) => this.log('error', 'recording a job result failed', { job: entry.job.id, error: String(error) }))
      .finally(() => this.unreserve(live, entry, run));
  }

  /**
   * The job's process runs: only now is it reported running, with the executor's handle of it and the digest of
   * the image it runs in (null for a job without one, so that a rerun does not keep an earlier attempt's).
   */
  private started(live: LiveTask, entry: LiveJob, info: { externalId?: string; imageDigest?: string }, startedAt: number): void {
    if (this.tasks.get(live.task.id) !== live) return;
    const { externalId } = info;
    const handle = externalId !== undefined && externalId !== entry.job.externalId ? { externalId } : {};
    if (entry.job.status === 'queued') {
      if (live.task.status === 'queued') this.setTask(live, 'running', 'first job started', { startedAt });
      const attempt = entry.job.attempt;
      const imageDigest = info.imageDigest ?? null;
      this.setJob(live, entry, 'running', startReason(attempt), { attempt, startedAt, endedAt: null, exitCode: null, imageDigest, ...handle });
    } else if (externalId !== undefined) {
      this.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch: handle });
    }
    this.wake(live.task.id);
  }

  /**
   * An executor says what a job waits for outside the scheduler (its image being pulled, a place in Slurm's queue), or
   * (null) that it waits no more; written into the job's reason as the scheduler's own waits are.
   */
  private waitedOutside(live: LiveTask, entry: LiveJob, what: string | null): void {
    if (this.tasks.get(live.task.id) !== live || isTerminalJob(entry.job.status)) return;
    if (what !== null) this.waits.note(live, entry, what);
    else this.waits.over(live, entry, entry.job.status === 'running' ? startReason(entry.job.attempt) : undefined);
    this.wake();
  }

  /** What the call cache needs of a task (docs/tasks.md, "Call caching" and "Resume"). */
  private cacheContext(live: LiveTask): CacheContext {
    const reference = live.task.plan.reference_task;
    return {
      account: live.task.accountName,
      enabled: this.options.callCaching !== false && live.task.plan.call_caching !== false,
      referenceTask: typeof reference === 'string' ? reference : null,
      upstreamKey: (jobId) => live.byId.get(jobId)?.job.cacheKey ?? null,
    };
  }

  private finish(live: LiveTask, entry: LiveJob, result: RunResult, abortReason: AbortReason | undefined, memMb: number): void {
    // Given up or deleted meanwhile: the task's next owner decides about this job.
    if (this.tasks.get(live.task.id) !== live || abortReason === 'lost') return;
    this.options.onJobEnded?.(result);
    live.starting.delete(entry);
    // What a store step put in the data store, written with its end (docs/data.md, "Provenance").
    if (result.stored?.length) {
      const specOf = (id: string) => live.byId.get(id)?.spec;
      this.pending.stored.push(...provenanceOf(live.task, { id: entry.job.id, spec: entry.spec }, result.stored, specOf, result.endedAt));
    }
    const ran = result.exitCode !== null || result.outcome === 'succeeded';
    // An executor that did not report the start: the job ran all the same.
    if (entry.job.status === 'queued' && ran) this.started(live, entry, {}, result.startedAt);
    const attempts = ran || result.outcome !== 'killed' ? [...entry.job.attempts, attemptOf(entry, result, memMb)] : entry.job.attempts;
    const ended = { attempt: entry.job.attempt, exitCode: result.exitCode, endedAt: result.endedAt, attempts };
    if (result.outcome === 'succeeded') {
      return this.setJob(live, entry, 'succeeded', result.reason, {
        ...ended,
        cachedFrom: result.cachedFrom ?? null,
        ...keyOf(result),
        outputStamps: result.outputStamps ?? null,
      });
    }
    const keyed = keyOf(result);
    if (result.outcome === 'killed' && abortReason === 'shutdown') {
      if (entry.job.status === 'running') this.setJob(live, entry, 'queued', 'its worker shut down while it ran; it runs again from scratch', ended);
      else this.notStarted(live, entry);
      return;
    }
    if (result.outcome === 'killed') {
      return this.setJob(live, entry, 'cancelled', abortReason === 'fail-fast' ? 'killed: another node of the task failed' : 'killed: the task was stopped', { ...ended, ...keyed });
    }
    const retry = this.retryOf(entry, result, memMb);
    if (retry.again) {
      const { delaySeconds, nextMemMb } = retry;
      if (delaySeconds > 0) {
        entry.notBefore = Date.now() + delaySeconds * 1000;
        setTimeout(() => this.wake(live.task.id), delaySeconds * 1000 + 5).unref();
      } else entry.notBefore = undefined;
      const more = nextMemMb !== memMb ? `, with ${nextMemMb} MB` : '';
      const when = delaySeconds > 0 ? ` in ${delaySeconds} s` : '';
      return this.setJob(live, entry, 'queued', `attempt ${entry.job.attempt} ${retry.kind}: ${result.reason}; attempt ${entry.job.attempt + 1} runs${when}${more}`, {
        ...ended,
        ...keyed,
        memMb: nextMemMb,
      });
    }
    return this.setJob(live, entry, 'failed', retry.why ? `${result.reason} (${retry.why})` : result.reason, { ...ended, ...keyed });
  }

  /** Whether a failed attempt is followed by another (the tool's retry policy, or the server's), when and with what memory. */
  private retryOf(entry: LiveJob, result: RunResult, memMb: number):
    | { again: true; kind: RetryOn; delaySeconds: number; nextMemMb: number }
    | { again: false; why?: string } {
    const kind = failureKind(result.outcome, result.exitCode);
    if (kind === undefined) return { again: false };
    const base = this.options.retry ?? DEFAULT_RETRY_POLICY;
    let policy = base;
    if (entry.spec.kind === 'tool' && entry.spec.retry) {
      try {
        policy = readRetryPolicy(entry.spec.retry, 'retry', base, parseSizeMb);
      } catch {
        policy = base; // checked when the tool was put; a policy this version cannot read falls back to the default
      }
    }
    if (!policy.on.includes(kind)) return { again: false };
    if (entry.job.attempt >= policy.maxAttempts) {
      return policy.maxAttempts > 1 ? { again: false, why: `attempt ${entry.job.attempt} of ${policy.maxAttempts}, no retries left` } : { again: false };
    }
    let nextMemMb = memMb;
    if (kind === 'out_of_memory' && policy.memoryFactor > 1) {
      const more = nextMemory(policy, memMb, this.options.memoryMb);
      if (more === undefined) return { again: false, why: `no more memory to give than ${memMb} MB` };
      nextMemMb = more;
    }
    return { again: true, kind, delaySeconds: backoffBefore(policy, entry.job.attempt + 1), nextMemMb };
  }

  /**
   * Delete the working directories of a task's tool jobs, where their outputs are (docs/tasks.md, "Intermediate
   * cleanup"): what was stored is in the data store, copied there by the store steps, and stays. The jobs forget
   * their outputs' stamps in the same write, so that no later job is a cache hit on them.
   */
  private removeIntermediates(live: LiveTask): void {
    const dirs: string[] = [];
    for (const entry of live.jobs) {
      if (entry.spec.kind !== 'tool') continue;
      entry.job.outputStamps = null;
      this.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch: { outputStamps: null } });
      dirs.push(this.options.layout.workDir(live.task.id, entry.spec.nodeId));
    }
    void this.flush()
      .then(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 }))))
      .then(() => this.log('info', 'removed intermediate outputs', { task: live.task.id, jobs: dirs.length }))
      .catch((error: unknown) => this.log('error', 'removing intermediate outputs failed', { task: live.task.id, error: String(error) }));
  }

  /** Remove a task's files (before its rows: a DELETE answers once the rows are gone). */
  private async removeFiles(taskId: string): Promise<void> {
    await Promise.all(this.preparing.values()); // a directory made ahead must not reappear after the removal
    await removeTaskFiles(this.options.layout, taskId);
  }
}

/** The reason of a job that has started: its attempt, after the first. */
function startReason(attempt: number): string {
  const reason = attempt > 1 ? `attempt ${attempt}` : 'started';
  return reason;
}

/** What a job keeps of its call-cache key (none when none was made). */
function keyOf(result: RunResult): JobPatch {
  if (result.cacheKey === undefined) return {};
  return { cacheKey: result.cacheKey, cacheParts: result.cacheParts as unknown as Json, cacheLookup: result.cacheLookup ?? null };
}

/** The record of an ended attempt, kept on its job (docs/tasks.md, "Retries"). */
function attemptOf(entry: LiveJob, result: RunResult, memMb: number): JobAttempt {
  return {
    attempt: entry.job.attempt,
    outcome: result.outcome,
    exitCode: result.exitCode,
    reason: result.reason,
    memMb,
    peakRssBytes: result.peakRssBytes ?? null,
    startedAt: result.startedAt,
    endedAt: result.endedAt,
  };
}

/** A task's directory with everything in it; also used by API replicas deleting a task no worker holds. */
export async function removeTaskFiles(layout: Layout, taskId: string): Promise<void> {
  // Retried briefly: an entry created or a file still open there at that moment fails the removal (ENOTEMPTY, EBUSY).
  await rm(layout.taskDir(taskId), { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
}

