import { FetchHosts } from '../domain/ga4gh/fetch-hosts.js';
import { RemoteFetch } from './remote-fetch.js';
import { JobSpecError } from '../domain/tasks/job-spec.js';
import { cannotRun, changesOf, type RuleEvent, type WorkerView } from '../domain/tasks/rules/index.js';
import { isTerminalTask } from '../domain/tasks/states.js';
import { DEFAULT_RETRY_POLICY } from '../domain/tools/retry-policy.js';
import type { Store, Task, WorkEvent } from '../store/store.js';
import { CallCache } from './call-cache.js';
import { DeferredJobs } from './deferred/deferred-jobs.js';
import { TaskDriver } from './effects.js';
import { JobRuns } from './job-runs.js';
import { FileJobLogs } from './job-logs.js';
import { removeTaskFiles } from './layout.js';
import { LiveTask, type LiveJob } from './live-task.js';
import type { Log } from './log.js';
import { Scheduler, type Start } from './scheduler.js';
import { Slots, type Running } from './slots.js';
import { prepareTasksRoot } from './tasks-root.js';
import { WaitNotes } from './wait-notes.js';
import { expireDeadLocalWorkers } from './worker-id.js';
import { StateWriter } from './writer.js';
import type { WorkerOptions } from './worker-options.js';

export type { WorkerOptions } from './worker-options.js';

/**
 * The worker: claims tasks through the store and drives them to their end (docs/operating.md, "Workers").
 *
 * Its state is the store. A worker holds a task while its lease lives (renewed by heartbeat) and writes the task's
 * state only while it holds it: every write is checked against the lease in the same transaction (writer.ts). It
 * starts a job only while its own clock says the lease is good for a while yet (that clock's deadline comes before
 * the database's, after which another worker may take the task), and kills the task's jobs itself when renewals fail
 * until that deadline: so two workers never run the same job. What it keeps in memory is a copy of the tasks it
 * holds, which any worker can rebuild from the store: a take-over after a worker died, a restart and a claim of a new
 * task are the same code.
 *
 * This file is the loop: claims, heartbeats, polling for requests, the store's events, and the scheduling pass. What
 * an event means for a task is the rules' to say (domain/tasks/rules), carried out by effects.ts; which queued job
 * starts is scheduler.ts's; running jobs is job-runs.ts's; writing is writer.ts's. A worker claims more tasks only
 * when it has room and nothing it holds is waiting for room, so it holds (and keeps in memory) only what it can run soon.
 */

const now = () => Date.now() / 1000;
/** Most tasks claimed in one go. */
const CLAIM_BATCH = 16;
/** Jobs launched between two turns of the event loop (launchAll). */
const LAUNCH_SLICE = 16;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Worker {
  private readonly store: Store;
  private readonly owner: string;
  private readonly leaseSeconds: number;
  private readonly maxTasks: number;
  private readonly slots: Slots;
  private readonly writer: StateWriter;
  private readonly scheduler: Scheduler;
  private readonly runs: JobRuns;
  private readonly driver: TaskDriver;
  /** What queued jobs wait for, written into their reasons when it changes (wait-notes.ts). */
  private readonly waits: WaitNotes;
  /** The tasks this worker holds, in the order it claimed them (oldest first, as the store hands them out). */
  private readonly tasks = new Map<string, LiveTask>();
  /** Tasks something happened to since the last pass: only these are looked at again. */
  private readonly dirty = new Set<string>();
  private readonly deleting = new Set<string>();
  private passRunning = false;
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
  /** Jobs' logs, for the hits of later tasks that read theirs from a task being deleted (handOver). */
  private readonly logs: FileJobLogs;
  /** Set when a job ends, so that a drain can wait for the last one. */
  private jobEnded: (() => void) | undefined;

  constructor(private readonly options: WorkerOptions) {
    this.store = options.store;
    this.owner = options.workerId;
    this.leaseSeconds = options.leaseSeconds ?? 15;
    this.maxTasks = options.maxTasks ?? Math.max(16, 4 * options.cpus);
    const log: Log = (level, message, fields) => this.log(level, message, fields);
    this.slots = new Slots(options.cpus, options.memoryMb);
    this.logs = new FileJobLogs(options.layout, options.store);
    this.writer = new StateWriter(options.store, this.owner, log, {
      held: (taskId) => this.tasks.has(taskId),
      lost: (taskId) => {
        const live = this.tasks.get(taskId);
        if (live) this.abandon(live, 'another worker holds it now');
      },
    });
    // A wait is a job's reason, not a transition: written with the job's next write, if the job is still in that state.
    this.waits = new WaitNotes(
      (live, entry, reason) => {
        entry.job.reason = reason;
        this.writer.pending.jobs.push({ id: entry.job.id, taskId: live.task.id, patch: { reason }, expect: [entry.job.status] });
      },
      () => this.wake(),
    );
    const schedulerHost = {
      held: (live: LiveTask) => this.holds(live),
      deleting: (taskId: string) => this.deleting.has(taskId),
      leaseYoung: (live: LiveTask) => Date.now() < live.leaseAskedAt + (this.leaseSeconds * 1000) / 2,
      cacheWanted: (live: LiveTask) => this.runs.cacheWanted(live),
    };
    this.scheduler = new Scheduler(this.slots, this.writer, options.layout, schedulerHost, this.waits);
    const calls = new CallCache(options.store, options.dataStore, options.layout);
    const { executor, layout, dataStore, jobTimeoutSeconds } = options;
    const callCaching = options.callCaching !== false;
    const onJobEnded = options.onJobEnded ? { onJobEnded: options.onJobEnded } : {};
    const sandboxed = executor.capabilities.sandbox;
    const deferred = new DeferredJobs(options.resolvers ?? {}, layout, { sandboxed, containers: options.containers === true });
    const remote = options.remote ?? new RemoteFetch(FetchHosts.parse(''));
    const runOptions = {
      executor,
      layout,
      dataStore,
      calls,
      jobTimeoutSeconds,
      callCaching,
      log,
      waits: this.waits,
      deferred,
      sandboxed,
      remote,
      ...onJobEnded,
    };
    this.runs = new JobRuns(runOptions, this.scheduler, this.slots, {
      held: (live) => this.holds(live),
      // A task being deleted starts nothing more (scheduler.ts, dispatch): a launch that waited for its slice may come after.
      mayStart: (live) => this.holds(live) && !this.stopped && !this.deleting.has(live.task.id),
      handle: (live, event) => void this.driver.handle(live, event),
      over: (live, entry, run) => this.over(live, entry, run),
      wake: (taskId) => this.wake(taskId),
    });
    const view: WorkerView = {
      running: this.slots.running,
      retry: options.retry ?? DEFAULT_RETRY_POLICY,
      memoryMb: options.memoryMb,
      maxRestarts: options.maxRestarts ?? 3,
      cleanupIntermediates: options.cleanupIntermediates === true,
      adopts: options.executor.adopt !== undefined,
    };
    this.driver = new TaskDriver(view, this.writer, this.scheduler, this.slots, options.layout, log, {
      wake: (taskId) => this.wake(taskId),
      retire: (live) => this.retire(live),
      abandon: (live, why) => this.abandon(live, why),
      removeTask: (live) => this.removeTask(live),
    });
  }

  /** What /healthz shows of this worker. */
  status() {
    let queued = 0;
    for (const live of this.tasks.values()) queued += live.queued.size;
    return {
      worker: this.owner,
      draining: this.draining,
      tasks: this.tasks.size,
      jobs: this.slots.running.size,
      free_cpus: this.slots.freeCpus,
      free_memory_mb: this.slots.freeMemMb,
      queued_jobs: queued,
    };
  }

  private log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(level, message, { worker: this.owner, ...fields });
  }

  /** Whether this worker still holds the task this copy is of (it was not given up, lost or deleted meanwhile). */
  private holds(live: LiveTask): boolean {
    return this.tasks.get(live.task.id) === live;
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
    this.log('info', 'draining', { jobs: this.slots.running.size, seconds: drainMs / 1000 });
    const deadline = Date.now() + drainMs;
    while (this.slots.running.size > 0 && Date.now() < deadline) {
      await Promise.race([new Promise<void>((resolve) => (this.jobEnded = resolve)), sleep(Math.min(1000, deadline - Date.now()))]);
    }
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.waits.close();
    this.unsubscribe?.();
    const left = [...this.slots.running.values()];
    for (const run of left) run.controller.abort('shutdown');
    await Promise.all(left.map((run) => run.done));
    for (const live of [...this.tasks.values()]) this.retire(live);
    await this.writer.flush();
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

  /**
   * The scheduling pass: each task something happened to is looked at by the rules, then queued jobs start where
   * there is room. The pass does not wait for its writes unless a job's start must be written first: the next pass
   * can run (a job ended, another starts) while they are on their way.
   */
  private async pass(): Promise<void> {
    const at = now();
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const id of dirty) {
      const live = this.tasks.get(id);
      if (!live || this.deleting.has(id)) continue;
      this.handleUnwaited(live, { kind: 'look', at });
      if (this.draining && this.holds(live) && live.jobsHere === 0) this.retire(live);
    }
    if (!this.stopped && !this.draining) this.scheduler.dispatch();
    for (const probe of this.scheduler.probes.splice(0)) this.runs.probe(probe);
    for (const resolve of this.scheduler.resolves.splice(0)) this.runs.resolve(resolve);
    for (const gather of this.scheduler.gathers.splice(0)) this.runs.gather(gather);
    await this.launchAll(this.scheduler.startNow.splice(0));
    const starts = this.scheduler.startAfterWrite.splice(0);
    if (starts.length === 0) this.writer.soon();
    else {
      await this.writer.flush();
      await this.launchAll(starts);
    }
    if (this.claimSoon) {
      this.claimSoon = false;
      this.maybeClaim();
    }
  }

  /**
   * Launch jobs a few at a time. What a launch does before its first wait for the disk or a process (its cache
   * lookup, SQLite statements, which are synchronous) runs with it, so a pass that starts a thousand jobs at once
   * (a task of a thousand ready jobs on a worker with room for them) held the event loop for seconds, and every
   * API request with it (bench:load, issue 23, item 8). Between slices, the event loop serves what came meanwhile.
   * A launch that comes after a stop or a lost lease finds that out itself and puts its job back (job-runs.ts).
   */
  private async launchAll(starts: Start[]): Promise<void> {
    for (let i = 0; i < starts.length; i++) {
      if (i > 0 && i % LAUNCH_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      this.runs.launch(starts[i]!);
    }
  }

  /** A job's run is over (it ended, or never started): its slots are free for the next. */
  private over(live: LiveTask, entry: LiveJob, run: Running): void {
    this.slots.free(live, entry, run);
    this.jobEnded?.();
    this.claimSoon = true;
    this.wake(live.task.id);
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
    if (room <= 0 || this.slots.freeCpus <= 0 || this.slots.freeMemMb <= 0 || this.wantsRoom()) return;
    const limit = Math.min(room, this.slots.freeCpus, CLAIM_BATCH);
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

  /** Take up a claimed task: its jobs from the store, and what its previous owner left running (job-rules.ts, takeOver). */
  private async load(task: Task, askedAt: number): Promise<void> {
    let live: LiveTask;
    try {
      live = new LiveTask(task, await this.store.listJobs(task.id), askedAt);
    } catch (error) {
      if (!(error instanceof JobSpecError)) throw error;
      // Written by another version or damaged: nothing of it can run here.
      this.log('error', 'a claimed task cannot be run', { task: task.id, error: error.message });
      // Its end and the release of its lease (the decision's one effect) in one write: this worker never held it in memory.
      const decision = cannotRun(task, now(), error.message);
      await this.store.applyChanges({ owner: this.owner, ...changesOf(task.id, decision), release: [task.id] });
      return;
    }
    if (this.stopped) {
      await this.store.releaseTasks(this.owner, [task.id]);
      return;
    }
    this.tasks.set(task.id, live);
    this.handleUnwaited(live, { kind: 'taken-over', at: now() });
    this.scheduler.enqueue(live);
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

  /** A stop was asked: the rules stop the task at the next look (task-rules.ts, advance). */
  private noteStop(live: LiveTask): void {
    if (live.task.stopRequested) return;
    live.task.stopRequested = true;
    this.wake(live.task.id);
  }

  /** Drop a task without writing anything more for it: its lease is gone, and its jobs here are killed. */
  private abandon(live: LiveTask, why: string): void {
    if (!this.holds(live)) return;
    this.log('warn', 'gave up a task', { task: live.task.id, why });
    this.forget(live.task.id);
    for (const run of this.slots.of(live.task.id)) run.controller.abort('lost');
    this.writer.pending.dropTask(live.task.id);
  }

  /** Done with a task (it ended, or this worker is shutting down): give up its lease with the next write. */
  private retire(live: LiveTask): void {
    if (!this.holds(live)) return;
    this.writer.release(live.task.id);
    this.forget(live.task.id);
    // Room for another task (claimed after this write, which the claim queues behind).
    this.claimSoon = true;
  }

  private forget(taskId: string): void {
    this.tasks.delete(taskId);
    this.dirty.delete(taskId);
    this.scheduler.forget(taskId);
  }

  /**
   * Carry out a DELETE (task-rules.ts, deleteTask): kill the task's jobs, then remove its files, then its rows (the
   * API waits for those to go). Nothing new starts for it meanwhile (dispatch passes over tasks being deleted).
   */
  private async deleteHeld(live: LiveTask): Promise<void> {
    const taskId = live.task.id;
    if (this.deleting.has(taskId) || !this.holds(live)) return;
    this.deleting.add(taskId);
    try {
      for (;;) {
        const removal = this.driver.handle(live, { kind: 'delete' });
        if (removal) return await removal;
        // Wait until none of its jobs runs, including one whose start was under way, and ask again.
        await Promise.all(this.slots.of(taskId).map((r) => r.done));
        await new Promise((resolve) => setImmediate(resolve));
        if (!this.holds(live)) return;
      }
    } catch (error) {
      this.log('error', 'deleting a task failed', { task: taskId, error: String(error) });
    } finally {
      this.deleting.delete(taskId);
    }
  }

  /** Remove a task this worker holds: its files (before its rows: a DELETE answers once the rows are gone), then its rows. */
  /** An event nobody waits on: a removal it leads to (a task deleted meanwhile) logs its failure instead of rejecting unseen. */
  private handleUnwaited(live: LiveTask, event: RuleEvent): void {
    void this.driver.handle(live, event)?.catch((error: unknown) => this.log('error', 'removing a task failed', { task: live.task.id, error: String(error) }));
  }

  private async removeTask(live: LiveTask): Promise<void> {
    const taskId = live.task.id;
    this.forget(taskId);
    this.writer.pending.dropTask(taskId);
    await this.scheduler.settled(); // a directory made ahead must not reappear after the removal
    await this.logs.handOver(taskId);
    await removeTaskFiles(this.options.layout, taskId);
    await this.store.deleteTask(taskId, this.owner);
    this.log('info', 'task deleted', { task: taskId });
  }
}
