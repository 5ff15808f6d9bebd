import { rm } from 'node:fs/promises';
import type { Job, JobStatus, StateChanges, Store, Task, TaskStatus } from '../store/store.js';
import { TERMINAL_JOB_STATES, TERMINAL_TASK_STATES } from '../domain/tasks/states.js';
import { JOB_TRANSITIONS, TASK_TRANSITIONS } from '../domain/tasks/states.js';
import type { DataStore } from '../data/index.js';
import type { Executor } from './executors/executor.js';
import { makeJobDirectories, runJob, type RunResult } from './job-runner.js';
import type { Layout } from './layout.js';
import type { JobSpecDocument } from '../domain/tasks/plan.js';
import { prepareTasksRoot } from './tasks-root.js';

/**
 * The scheduler: drives every unfinished task of the store to its end. Its state lives in the
 * store (every transition is written before it takes effect); what it keeps in memory is a copy
 * it can rebuild at any time, which is how it recovers after a crash.
 *
 * Jobs run as soon as their upstream jobs have succeeded and the machine has the CPU and memory
 * their tools ask for (oldest task first; a job that does not fit lets smaller ones pass).
 */

export interface EngineOptions {
  store: Store;
  dataStore: DataStore;
  executor: Executor;
  layout: Layout;
  /** CPU slots and memory (MiB) handed out to jobs. */
  cpus: number;
  memoryMb: number;
  jobTimeoutSeconds: number;
  /** How often to look for tasks and stop requests written by other processes (ms). */
  pollIntervalMs?: number;
  /** How many times a job may be caught running by a restart before it is failed. */
  maxRestarts?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

interface LiveJob {
  job: Job;
  spec: JobSpecDocument;
}

interface LiveTask {
  task: Task;
  jobs: LiveJob[];
  byId: Map<string, LiveJob>;
}

interface Running {
  taskId: string;
  cpu: number;
  memMb: number;
  controller: AbortController;
  done: Promise<void>;
}

type AbortReason = 'stop' | 'fail-fast' | 'shutdown';

const now = () => Date.now() / 1000;
/** How many forgotten (deleted) task ids are remembered (see Engine.forgotten). */
const MAX_FORGOTTEN = 10_000;
/** How many working directories of waiting jobs may be in the making at once (see prepareAhead). */
const PREPARE_AHEAD = 4;
const isTerminalJob = (status: JobStatus) => TERMINAL_JOB_STATES.includes(status);

export class Engine {
  private readonly tasks = new Map<string, LiveTask>();
  /**
   * Tasks forgotten before their deletion: the store still lists them until the deletion commits, and a poll
   * (reload) or a track in between must not take them up again (their jobs would run into removed directories).
   * The most recent ones are kept; a deleted task is gone from the store long before it leaves this set.
   */
  private readonly forgotten = new Set<string>();
  /** Tasks something happened to since the last pass: only these are looked at again. */
  private readonly dirty = new Set<string>();
  private readonly running = new Map<string, Running>();
  private freeCpus: number;
  private freeMemMb: number;
  private passRunning = false;
  private passAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(private readonly options: EngineOptions) {
    this.freeCpus = options.cpus;
    this.freeMemMb = options.memoryMb;
  }

  private log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(level, message, fields);
  }

  /** Recover what a previous run left unfinished, then start driving tasks. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.options.executor.check();
    const tasksRoot = await prepareTasksRoot(this.options.layout.tasksRoot);
    if (!tasksRoot.marked) this.log('info', 'the tasks directory keeps the default placement of new directories', { why: tasksRoot.why });
    await this.reload(true);
    const interval = this.options.pollIntervalMs ?? 1000;
    this.timer = setInterval(() => {
      this.reload(false).catch((error: unknown) => this.log('error', 'engine poll failed', { error: String(error) }));
    }, interval);
    this.timer.unref();
    this.wake();
  }

  /**
   * Stop driving tasks. Jobs still running are killed and put back in the queue, so that the
   * next start runs them again from scratch.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const run of this.running.values()) run.controller.abort('shutdown' satisfies AbortReason);
    await Promise.all([...this.running.values()].map((r) => r.done));
    await this.flush();
    await this.options.executor.close?.();
  }

  /** Something changed (a task was activated, a job ended, a stop was asked): look again now. */
  wake(taskId?: string): void {
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

  /** Load a task created by this process right away, and schedule it. */
  async track(taskId: string): Promise<void> {
    if (this.forgotten.has(taskId)) return;
    if (!this.tasks.has(taskId)) {
      const task = await this.options.store.getTask(taskId);
      if (task) await this.load(task, false);
    }
    this.wake(taskId);
  }

  /** Kill a task's running jobs now (the stop flag is already in the store). */
  async requestStop(taskId: string): Promise<void> {
    const live = this.tasks.get(taskId);
    if (live) live.task.stopRequested = true;
    else await this.track(taskId);
    this.wake(taskId);
  }

  /** Stop a task and forget it (before it is deleted). */
  async forget(taskId: string): Promise<void> {
    // Forget it first: a scheduling pass while its running jobs are being killed must not start others
    // (they would write into the task's directory after it is removed), nor may a poll load it again.
    this.forgotten.add(taskId);
    if (this.forgotten.size > MAX_FORGOTTEN) this.forgotten.delete(this.forgotten.values().next().value!);
    this.tasks.delete(taskId);
    this.dirty.delete(taskId);
    this.prepared.delete(taskId);
    const runs = [...this.running.values()].filter((r) => r.taskId === taskId);
    for (const run of runs) run.controller.abort('stop' satisfies AbortReason);
    await Promise.all(runs.map((r) => r.done));
  }

  // ---- loading and recovery -------------------------------------------------------------------

  /**
   * Look for tasks this process does not drive yet (created by another replica, or left by an
   * earlier run) and for stop requests made elsewhere; wake scheduled tasks whose time has come.
   */
  private async reload(recovering: boolean): Promise<void> {
    const flags = await this.options.store.activeTaskFlags();
    for (const { id, stopRequested } of flags) {
      if (this.forgotten.has(id)) continue;
      const live = this.tasks.get(id);
      if (!live) {
        const task = await this.options.store.getTask(id);
        if (task) await this.load(task, recovering);
        this.dirty.add(id);
      } else if (stopRequested && !live.task.stopRequested) {
        live.task.stopRequested = true;
        this.dirty.add(id);
      }
    }
    const t = now();
    for (const live of this.tasks.values()) {
      if (live.task.status === 'scheduled' && (live.task.scheduleAt ?? 0) <= t) this.dirty.add(live.task.id);
    }
    if (this.dirty.size > 0) this.wake();
  }

  private async load(task: Task, recovering: boolean): Promise<void> {
    const jobs = await this.options.store.listJobs(task.id);
    // Forgotten, or loaded by someone else (a poll and a track), while the jobs were read.
    if (this.forgotten.has(task.id) || this.tasks.has(task.id)) return;
    const live: LiveTask = { task, jobs: [], byId: new Map() };
    const order: string[] = Array.isArray(task.plan.jobs) ? (task.plan.jobs as string[]) : jobs.map((j) => j.id);
    const byId = new Map(jobs.map((j) => [j.id, j]));
    for (const id of order) {
      const job = byId.get(id);
      if (!job) continue;
      const entry = { job, spec: job.spec as unknown as JobSpecDocument };
      live.jobs.push(entry);
      live.byId.set(id, entry);
    }
    this.tasks.set(task.id, live);
    if (!recovering) return;
    // A job found running belongs to a process that no longer exists: run it again from scratch,
    // unless that keeps happening.
    for (const entry of live.jobs) {
      if (entry.job.status !== 'running' || this.running.has(entry.job.id)) continue;
      const maxRestarts = this.options.maxRestarts ?? 3;
      if (entry.job.attempt >= maxRestarts) {
        this.setJob(entry, 'failed', `the server stopped ${entry.job.attempt} times while this job was running`, { endedAt: now() });
      } else {
        this.setJob(entry, 'queued', `re-run from scratch: the server stopped while attempt ${entry.job.attempt} was running`);
      }
      this.log('warn', 'recovered a job that was running when the server stopped', { job: entry.job.id, status: entry.job.status });
    }
  }

  // ---- state changes -------------------------------------------------------------------------------
  //
  // Changes are made in memory at once and written to the store together at the end of each
  // scheduling pass: one commit for all a pass decided, instead of one per transition, and that
  // commit does not wait for the disk (see flush).
  // Nothing is lost by that on a crash: a job whose start was not yet written is still queued in
  // the store and runs again from scratch; one whose end was not yet written is found running and
  // runs again; a job recorded as finished is never run again.

  private pending: Required<Omit<StateChanges, 'relaxed'>> = { tasks: [], jobs: [] };
  private flushing: Promise<void> = Promise.resolve();

  private setJob(entry: LiveJob, status: JobStatus, reason: string, extra: Partial<Pick<Job, 'attempt' | 'exitCode' | 'startedAt' | 'endedAt'>> = {}): void {
    if (!JOB_TRANSITIONS[entry.job.status].includes(status)) {
      this.log('error', 'job transition outside the state machine (docs/tasks.md)', { job: entry.job.id, from: entry.job.status, to: status });
    }
    Object.assign(entry.job, { status, reason, ...extra });
    this.pending.jobs.push({ id: entry.job.id, patch: { status, reason, ...extra } });
  }

  private setTask(live: LiveTask, status: TaskStatus, reason: string, extra: Partial<Pick<Task, 'startedAt' | 'endedAt'>> = {}): void {
    if (!TASK_TRANSITIONS[live.task.status].includes(status)) {
      this.log('error', 'task transition outside the state machine (docs/tasks.md)', { task: live.task.id, from: live.task.status, to: status });
    }
    Object.assign(live.task, { status, reason, ...extra });
    this.pending.tasks.push({ id: live.task.id, patch: { status, reason, ...extra } });
    if (TERMINAL_TASK_STATES.includes(status)) this.log('info', `task ${status}`, { task: live.task.id, name: live.task.name, reason });
  }

  /** Write what is pending, in order, after any earlier write. */
  private flush(): Promise<void> {
    const batch = this.pending;
    if (batch.tasks.length + batch.jobs.length === 0) return this.flushing;
    this.pending = { tasks: [], jobs: [] };
    // Relaxed durability: a machine crash may lose the last passes' writes, which recovery turns into
    // "queued" or "running" jobs that run again (docs/tasks.md); a process crash loses nothing written.
    const write = () => this.options.store.applyChanges({ ...batch, relaxed: true });
    this.flushing = this.flushing.then(write, write);
    this.flushing.catch((error: unknown) => this.log('error', 'writing task state failed', { error: String(error) }));
    return this.flushing;
  }

  // ---- the scheduling pass ----------------------------------------------------------------------

  private async pass(): Promise<void> {
    const t = now();
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const id of dirty) {
      const live = this.tasks.get(id);
      if (!live) continue;
      this.advance(live, t);
      if (TERMINAL_TASK_STATES.includes(live.task.status) && ![...this.running.values()].some((r) => r.taskId === live.task.id)) {
        this.tasks.delete(live.task.id);
        this.prepared.delete(live.task.id);
      }
    }
    this.dispatch();
    await this.flush();
  }

  /** Move one task forward: start time, stop requests, failures, newly ready jobs, the end. */
  private advance(live: LiveTask, t: number): void {
    const task = live.task;
    if (TERMINAL_TASK_STATES.includes(task.status)) return;
    const runningHere = (id: string) => this.running.has(id);

    if (task.stopRequested) {
      if (task.status === 'running') this.setTask(live, 'stopping', 'stop requested');
      for (const entry of live.jobs) {
        if (runningHere(entry.job.id)) this.running.get(entry.job.id)!.controller.abort('stop' satisfies AbortReason);
        else if (!isTerminalJob(entry.job.status)) this.setJob(entry, 'cancelled', 'the task was stopped', { endedAt: entry.job.status === 'running' ? t : null });
      }
      if (!live.jobs.some((j) => runningHere(j.job.id))) this.setTask(live, 'stopped', 'stopped by request', { endedAt: t });
      return;
    }

    if (task.status === 'scheduled') {
      if (task.scheduleAt !== null && task.scheduleAt > t) return;
      this.setTask(live, 'queued', 'start time reached');
    }

    const failed = live.jobs.find((j) => j.job.status === 'failed');
    if (failed) {
      // A node that fails fails its task: nothing else starts, running jobs are killed.
      for (const entry of live.jobs) {
        if (runningHere(entry.job.id)) this.running.get(entry.job.id)!.controller.abort('fail-fast' satisfies AbortReason);
        else if (!isTerminalJob(entry.job.status)) this.setJob(entry, 'cancelled', `not run: node ${failed.job.nodeId} failed`);
      }
      if (!live.jobs.some((j) => runningHere(j.job.id))) {
        this.setTask(live, 'failed', `node ${failed.job.nodeId} (${failed.job.name}) failed: ${failed.job.reason}`, { endedAt: t });
      }
      return;
    }

    const ready = live.jobs.filter((entry) => entry.job.status === 'waiting' && entry.spec.deps.every((id) => live.byId.get(id)?.job.status === 'succeeded'));
    for (const entry of ready) this.setJob(entry, 'queued', 'upstream jobs succeeded');

    if (live.jobs.every((j) => j.job.status === 'succeeded')) {
      this.setTask(live, 'succeeded', `all ${live.jobs.length} jobs succeeded`, { endedAt: t, ...(task.startedAt === null ? { startedAt: t } : {}) });
    }
  }

  /** Start queued jobs while resources allow, oldest task first. */
  private dispatch(): void {
    if (this.stopped) return;
    for (const live of this.tasks.values()) {
      if (live.task.stopRequested || !['queued', 'running'].includes(live.task.status)) continue;
      for (const entry of live.jobs) {
        if (entry.job.status !== 'queued' || this.running.has(entry.job.id)) continue;
        const cpu = entry.spec.kind === 'tool' ? Math.min(Math.max(entry.spec.cpu, 1), this.options.cpus) : 0;
        const memMb = entry.spec.kind === 'tool' ? Math.min(entry.spec.memMb, this.options.memoryMb) : 0;
        if (cpu > this.freeCpus || memMb > this.freeMemMb) {
          this.prepareAhead(live, entry);
          continue;
        }
        this.launch(live, entry, cpu, memMb);
      }
    }
  }

  /**
   * Jobs whose directories have been made (or are being made) ahead of their start, by task: true when they
   * were made from nothing (see makeJobDirectories).
   */
  private readonly prepared = new Map<string, Map<string, Promise<boolean>>>();
  /** Those still being made, so that a task's files are removed only after them. */
  private readonly preparing = new Map<string, Promise<boolean>>();

  /**
   * Make the working directory of a job that waits for a free slot, so that its start does not wait
   * for the file system (creating directories is the slow part of starting a short job). A few at a
   * time, through libuv's thread pool, while other jobs run; a failure here is left for the start to
   * report.
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

  private launch(live: LiveTask, entry: LiveJob, cpu: number, memMb: number): void {
    const madeAhead = this.prepared.get(live.task.id)?.get(entry.job.id);
    this.prepared.get(live.task.id)?.delete(entry.job.id);
    const startedAt = now();
    if (live.task.status === 'queued') this.setTask(live, 'running', 'first job started', { startedAt });
    const attempt = entry.job.attempt + 1;
    this.setJob(entry, 'running', attempt > 1 ? `attempt ${attempt}` : 'started', { attempt, startedAt, endedAt: null, exitCode: null });
    this.freeCpus -= cpu;
    this.freeMemMb -= memMb;
    const controller = new AbortController();
    const run: Running = { taskId: live.task.id, cpu, memMb, controller, done: Promise.resolve() };
    this.running.set(entry.job.id, run);
    run.done = runJob(entry.spec, {
      taskId: live.task.id,
      jobId: entry.job.id,
      layout: this.options.layout,
      dataStore: this.options.dataStore,
      executor: this.options.executor,
      cpu,
      memMb,
      timeoutSeconds: this.options.jobTimeoutSeconds,
      signal: controller.signal,
      ...(madeAhead ? { madeAhead } : {}),
    })
      .then((result) => this.finish(entry, result, controller.signal.reason as AbortReason | undefined))
      .catch((error: unknown) => this.log('error', 'recording a job result failed', { job: entry.job.id, error: String(error) }))
      .finally(() => {
        this.running.delete(entry.job.id);
        this.freeCpus += cpu;
        this.freeMemMb += memMb;
        this.wake(live.task.id);
      });
  }

  private finish(entry: LiveJob, result: RunResult, abortReason: AbortReason | undefined): void {
    const ended = { exitCode: result.exitCode, endedAt: result.endedAt };
    if (result.outcome === 'succeeded') return this.setJob(entry, 'succeeded', result.reason, ended);
    if (result.outcome === 'killed' && abortReason === 'shutdown') {
      return this.setJob(entry, 'queued', 'the server shut down while the job ran; it will run again from scratch', ended);
    }
    if (result.outcome === 'killed') {
      return this.setJob(entry, 'cancelled', abortReason === 'fail-fast' ? 'killed: another node of the task failed' : 'killed: the task was stopped', ended);
    }
    return this.setJob(entry, 'failed', result.reason, ended);
  }

  /** Remove a task's files (after the task is deleted). */
  async removeFiles(taskId: string): Promise<void> {
    await Promise.all(this.preparing.values()); // a directory made ahead must not reappear after the removal
    // Retried briefly: an entry created or a file still open there at that moment fails the removal (ENOTEMPTY, EBUSY).
    await rm(this.options.layout.taskDir(taskId), { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }
}
