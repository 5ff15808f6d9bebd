import { join } from 'node:path';
import type { DataStore } from '../data/index.js';
import { runOf } from '../domain/tasks/job-spec.js';
import { startReason, type KillReason, type RuleEvent } from '../domain/tasks/rules/index.js';
import { isTerminalJob } from '../domain/tasks/states.js';
import type { CacheContext, CallCache } from './call-cache.js';
import type { DeferredJobs } from './deferred/deferred-jobs.js';
import { runStep } from './deferred/run-step.js';
import type { Executor } from './executors/executor.js';
import { probeCache, runJob, type CacheProbe, type RunResult } from './job-runner.js';
import type { Layout } from './layout.js';
import type { LiveJob, LiveTask } from './live-task.js';
import type { Log } from './log.js';
import type { Scheduler, Start } from './scheduler.js';
import type { Slots } from './slots.js';
import type { RemoteFetch } from './remote-fetch.js';
import type { WaitNotes } from './wait-notes.js';

const now = () => Date.now() / 1000;

export interface JobRunsOptions {
  executor: Executor;
  layout: Layout;
  dataStore: DataStore;
  calls: CallCache;
  jobTimeoutSeconds: number;
  /** Whether jobs may be satisfied from the call cache (docs/tasks.md, "Call caching"). */
  callCaching: boolean;
  log: Log;
  /** Told of every job this worker ran when it ends, however it ended (for the metrics). */
  onJobEnded?: (result: RunResult) => void;
  /** Deferred jobs' resolvers (deferred/). */
  deferred: DeferredJobs;
  /** Whether the executor has a sandbox (deferred/staging.ts). */
  sandboxed: boolean;
  /** Where what an executor says a job waits for is noted (none: the executors are not asked). */
  waits?: WaitNotes;
  /** What TES tasks' http(s) inputs are fetched through. */
  remote: RemoteFetch;
}

/** What running jobs asks of the worker. */
export interface JobRunsHost {
  /** Whether the worker still holds this task. */
  held(live: LiveTask): boolean;
  /** Whether a job of this task may start now (the worker holds the task and is not shutting down). */
  mayStart(live: LiveTask): boolean;
  /** Decide what an event means for the task and carry it out (effects.ts). */
  handle(live: LiveTask, event: RuleEvent): void;
  /** The job's run is over (it ended, or never started): its slots are free. */
  over(live: LiveTask, entry: LiveJob, run: Start['run']): void;
  /** Look at the task again. */
  wake(taskId: string): void;
}

/**
 * Running the jobs the scheduler chose (job-runner.ts runs one), and telling the rules what becomes of them: a job's
 * start, its end, a call-cache lookup's answer. Never blocks on a job: each runs on its own promise.
 */
export class JobRuns {
  constructor(
    private readonly options: JobRunsOptions,
    private readonly scheduler: Scheduler,
    private readonly slots: Slots,
    private readonly host: JobRunsHost,
  ) {}

  /** What the call cache needs of a task (docs/tasks.md, "Call caching" and "Resume"). */
  cacheContext(live: LiveTask): CacheContext {
    const reference = live.task.plan.reference_task;
    return {
      account: live.task.accountName,
      enabled: this.options.callCaching && live.task.plan.call_caching !== false,
      referenceTask: typeof reference === 'string' ? reference : null,
      upstreamKey: (jobId) => live.byId.get(jobId)?.job.cacheKey ?? null,
    };
  }

  /** Whether the call cache is asked about a task's jobs at all (cacheContext without making it). */
  cacheWanted(live: LiveTask): boolean {
    return (this.options.callCaching && live.task.plan.call_caching !== false) || typeof live.task.plan.reference_task === 'string';
  }

  /** Run a job whose start has been decided (and written, if it had to be), or follow one an earlier owner started. */
  launch({ live, entry, run, adopt }: Start): void {
    if (!this.host.mayStart(live) || run.controller.signal.aborted) {
      // Stopped, lost or shutting down between the decision and the write: it did not start.
      this.scheduler.requeue(live, entry, adopt === undefined);
      this.host.over(live, entry, run);
      return;
    }
    const madeAhead = this.scheduler.takeMadeAhead(live, entry);
    const { executor, layout, dataStore, jobTimeoutSeconds, calls } = this.options;
    const onStarted = (info: { externalId?: string; imageDigest?: string }) => this.started(live, entry, info);
    const common = {
      taskId: live.task.id,
      jobId: entry.job.id,
      layout,
      executor,
      cpu: run.cpu,
      memMb: run.memMb,
      timeoutSeconds: jobTimeoutSeconds,
      signal: run.controller.signal,
      onStarted,
      ...this.waitHook(live, entry),
    };
    const resolved = runOf(entry.spec);
    const running = resolved
      ? runStep(resolved, {
          ...common,
          nodeId: entry.job.nodeId,
          sandboxed: this.options.sandboxed,
          allowed: [layout.taskDir(live.task.id), join(layout.dataStoreRoot, live.task.accountName)],
          collect: (ended) => this.options.deferred.collect(live, entry, resolved, ended),
          cache: {
            calls,
            context: this.cacheContext(live),
            layout,
            taskId: live.task.id,
            jobId: entry.job.id,
            name: entry.job.name,
            keyOfNode: (nodeId) => live.jobs.find((j) => j.job.nodeId === nodeId)?.job.cacheKey ?? null,
          },
        })
      : runJob(entry.spec, {
          ...common,
          dataStore,
          remote: this.options.remote,
          cache: { calls, context: this.cacheContext(live), ...(entry.probe ? { probed: entry.probe } : {}) },
          ...(adopt !== undefined ? { adopt } : {}),
          ...(madeAhead ? { madeAhead } : {}),
        });
    run.done = running
      .catch((error: unknown): RunResult => {
        const at = now();
        const reason = `engine error: ${error instanceof Error ? error.message : String(error)}`;
        return { outcome: 'failed', exitCode: null, reason, startedAt: at, endedAt: at };
      })
      .then((result) => this.ended(live, entry, result, run.controller.signal.reason as KillReason | undefined, run.memMb))
      .catch((error: unknown) => this.options.log('error', 'recording a job result failed', { job: entry.job.id, error: String(error) }))
      .finally(() => this.host.over(live, entry, run));
  }

  /** Look a queued job up in the call cache (scheduler.ts, probe): a hit ends it, a miss sends it back to the queue. */
  probe({ live, entry, run }: Start): void {
    const spec = entry.spec;
    if (spec.kind !== 'tool') throw new Error(`job ${entry.job.id} is not a tool job: nothing to look up`);
    const memMb = this.slots.memOf(entry);
    const context = { executor: this.options.executor, signal: run.controller.signal, taskId: live.task.id, jobId: entry.job.id };
    const cache = { calls: this.options.calls, context: this.cacheContext(live) };
    run.done = probeCache(spec, { ...context, onStarted: (info) => this.started(live, entry, info), ...this.waitHook(live, entry) }, cache)
      .catch((error: unknown): CacheProbe => {
        this.options.log('error', 'looking a job up in the call cache failed', { job: entry.job.id, error: String(error) });
        return {};
      })
      .then((probe) => this.probed(live, entry, probe, memMb))
      .catch((error: unknown) => this.options.log('error', 'recording a job result failed', { job: entry.job.id, error: String(error) }))
      .finally(() => {
        this.scheduler.probed();
        this.host.over(live, entry, run);
      });
  }

  /** Ask a queued deferred job's resolver what it is (scheduler.ts, resolve), and tell the rules. */
  resolve({ live, entry, run }: Start): void {
    const startedAt = now();
    const signal = run.controller.signal;
    run.done = this.options.deferred
      .resolve(live, entry, signal)
      .then((resolution) => {
        const killedFor = signal.reason as KillReason | undefined;
        if (!this.host.held(live) || killedFor === 'lost') return;
        this.host.handle(live, { kind: 'job-resolved', jobId: entry.job.id, resolution, killedFor, startedAt, at: now() });
      })
      .catch((error: unknown) => this.options.log('error', 'recording a resolution failed', { job: entry.job.id, error: String(error) }))
      .finally(() => {
        this.scheduler.resolved();
        this.host.over(live, entry, run);
      });
  }

  /** Gather the outputs of the jobs a deferred job added, now that they have ended, and tell the rules. */
  gather({ live, entry, run }: Start): void {
    const signal = run.controller.signal;
    if (!this.host.mayStart(live) || signal.aborted) {
      // Shutting down, or the task went: its next owner gathers it (rules/job-rules.ts, takeOver).
      this.scheduler.resolved();
      this.host.over(live, entry, run);
      return;
    }
    run.done = this.options.deferred
      .gather(live, entry, signal)
      .then((outcome) => {
        const killedFor = signal.reason as KillReason | undefined;
        if (!this.host.held(live) || killedFor === 'lost') return;
        this.host.handle(live, { kind: 'job-gathered', jobId: entry.job.id, outcome, killedFor, at: now() });
      })
      .catch((error: unknown) => this.options.log('error', 'recording a gathering failed', { job: entry.job.id, error: String(error) }))
      .finally(() => {
        this.scheduler.resolved();
        this.host.over(live, entry, run);
      });
  }

  /**
   * The job's process runs: only now is it reported running, with the executor's handle of it and the digest of
   * the image it runs in.
   */
  private started(live: LiveTask, entry: LiveJob, info: { externalId?: string; imageDigest?: string }): void {
    if (!this.host.held(live)) return;
    this.host.handle(live, { kind: 'job-started', jobId: entry.job.id, at: now(), ...info });
    this.host.wake(live.task.id);
  }

  /** The hook through which the executor says what the job waits for, when waits are noted. */
  private waitHook(live: LiveTask, entry: LiveJob): { onWaiting?: (what: string | null) => void } {
    return this.options.waits ? { onWaiting: (what) => this.waited(live, entry, what) } : {};
  }

  /**
   * An executor says what a job waits for outside the scheduler (its image being pulled, a place in Slurm's queue), or
   * (null) that it waits no more; written into the job's reason as the scheduler's own waits are (wait-notes.ts).
   */
  private waited(live: LiveTask, entry: LiveJob, what: string | null): void {
    const waits = this.options.waits;
    if (!waits || !this.host.held(live) || isTerminalJob(entry.job.status)) return;
    if (what !== null) waits.note(live, entry, what);
    else waits.over(live, entry, entry.job.status === 'running' ? startReason(entry.job.attempt) : undefined);
    this.host.wake(live.task.id);
  }

  private ended(live: LiveTask, entry: LiveJob, result: RunResult, killedFor: KillReason | undefined, memMb: number): void {
    // Given up or deleted meanwhile: the task's next owner decides about this job.
    if (!this.host.held(live) || killedFor === 'lost') return;
    this.options.onJobEnded?.(result);
    live.starting.delete(entry);
    this.host.handle(live, { kind: 'job-ended', jobId: entry.job.id, result, killedFor, memMb, at: now() });
  }

  private probed(live: LiveTask, entry: LiveJob, probe: CacheProbe, memMb: number): void {
    // A miss (or the task went away meanwhile): it runs later, with this key, without looking again.
    if (!probe.result) entry.probe = probe;
    if (!this.host.held(live)) {
      this.scheduler.requeue(live, entry);
      return;
    }
    if (probe.result) {
      this.options.onJobEnded?.(probe.result);
      live.starting.delete(entry);
    }
    this.host.handle(live, { kind: 'cache-probed', jobId: entry.job.id, hit: probe.result, memMb, at: now() });
  }
}
