import type { Job, JobAttempt, JobPatch, Json } from '../../../store/store.js';
import { parseSizeMb } from '../../tools/definition.js';
import { backoffBefore, failureKind, nextMemory, readRetryPolicy, type RetryOn } from '../../tools/retry-policy.js';
import { expansionOf, runOf } from '../job-spec.js';
import { provenanceOf } from '../outputs.js';
import { isTerminalJob } from '../states.js';
import { DecisionBuilder, type Decision } from './decision.js';
import type { KillReason } from './effects.js';
import type { AttemptResult, JobState, TaskState, WorkerView } from './state.js';

/**
 * The rules of a job's life on a worker (docs/tasks.md, "States", "Retries", "Recovery", "Call caching"): its start,
 * its end (succeeded, killed, retried or failed), the jobs a take-over finds, and a call-cache lookup ahead of its
 * start. Pure: each takes the task as it is and what happened, and returns what is to change (decision.ts).
 */

/** The job's process runs (a data step began; a cache hit is being taken): it is reported running only now. */
export interface JobStarted {
  kind: 'job-started';
  jobId: string;
  at: number;
  /** The executor's handle of the job, and the digest of the image it runs in (null for a job without one). */
  externalId?: string;
  imageDigest?: string;
}

/** A run of the job ended, however it ended. */
export interface JobEnded {
  kind: 'job-ended';
  jobId: string;
  result: AttemptResult;
  /** Why the worker aborted the run, if it did. */
  killedFor: KillReason | undefined;
  /** The memory the attempt was given (MiB). */
  memMb: number;
  /** Now (unix seconds): a retry's backoff counts from here. */
  at: number;
}

/** The call cache was looked up for a queued job ahead of its start: a hit ends it, a miss queues it again. */
export interface CacheProbed {
  kind: 'cache-probed';
  jobId: string;
  hit: AttemptResult | undefined;
  memMb: number;
  at: number;
}

export function jobStarted(state: TaskState, job: JobState, event: JobStarted): Decision {
  const out = new DecisionBuilder(state.task);
  started(out, job, event.at, event);
  return out.build();
}

function started(out: DecisionBuilder, job: JobState, at: number, info: { externalId?: string; imageDigest?: string }): void {
  const { externalId } = info;
  const handle = externalId !== undefined && externalId !== job.job.externalId ? { externalId } : undefined;
  if (out.statusOf(job) === 'queued') {
    if (out.taskStatus === 'queued') out.taskTo('running', 'first job started', { startedAt: at });
    const attempt = job.job.attempt;
    const imageDigest = info.imageDigest ?? null;
    const patch = { attempt, startedAt: at, endedAt: null, exitCode: null, imageDigest, ...handle };
    out.jobTo(job, 'running', startReason(attempt), patch);
  } else if (handle) {
    // An adopted job that was running already: only its new handle.
    out.patchJob(job, handle);
  }
}

/** The reason of a job that has started: its attempt, after the first (also what a wait shown in it gives way to). */
export function startReason(attempt: number): string {
  const reason = attempt > 1 ? `attempt ${attempt}` : 'started';
  return reason;
}

export function jobEnded(state: TaskState, job: JobState, event: JobEnded, worker: WorkerView): Decision {
  const out = new DecisionBuilder(state.task);
  ended(out, state, job, event, worker);
  return out.build();
}

type Ending = Omit<JobEnded, 'kind' | 'jobId'>;

function ended(out: DecisionBuilder, state: TaskState, job: JobState, { result, killedFor, memMb, at }: Ending, worker: WorkerView): void {
  // What a store step put in the data store is recorded with its end, however it ended (docs/data.md, "Provenance").
  if (result.stored?.length) {
    const specOf = (jobId: string) => state.byId.get(jobId)?.spec;
    out.stored(provenanceOf(state.task, { id: job.job.id, spec: job.spec }, result.stored, specOf, result.endedAt));
  }
  const ran = result.exitCode !== null || result.outcome === 'succeeded';
  // An executor that did not report the start: the job ran all the same.
  if (out.statusOf(job) === 'queued' && ran) started(out, job, result.startedAt, {});
  const attempts = ran || result.outcome !== 'killed' ? [...job.job.attempts, attemptOf(job.job, result, memMb)] : job.job.attempts;
  const ended = { attempt: job.job.attempt, exitCode: result.exitCode, endedAt: result.endedAt, attempts };
  if (result.outcome === 'succeeded') {
    const values = result.outputs !== undefined ? { outputs: result.outputs } : {};
    const outputs = { cachedFrom: result.cachedFrom ?? null, ...keyOf(result), outputStamps: result.outputStamps ?? null, ...values };
    out.jobTo(job, 'succeeded', result.reason, { ...ended, ...outputs });
    queueReady(out, job);
    return;
  }
  const keyed = keyOf(result);
  if (result.outcome === 'killed' && killedFor === 'shutdown') {
    if (out.statusOf(job) === 'running') out.jobTo(job, 'queued', 'its worker shut down while it ran; it runs again from scratch', ended);
    else out.effect({ kind: 'not-started', jobId: job.job.id });
    return;
  }
  if (result.outcome === 'killed') {
    out.jobTo(job, 'cancelled', killedFor === 'fail-fast' ? 'killed: another node of the task failed' : 'killed: the task was stopped', { ...ended, ...keyed });
    return;
  }
  const retry = retryOf(job, result, memMb, worker);
  if (retry.again) {
    const { delaySeconds, nextMemMb } = retry;
    out.effect({ kind: 'hold', jobId: job.job.id, until: delaySeconds > 0 ? at + delaySeconds : null });
    const more = nextMemMb !== memMb ? `, with ${nextMemMb} MB` : '';
    const when = delaySeconds > 0 ? ` in ${delaySeconds} s` : '';
    const n = job.job.attempt;
    out.jobTo(job, 'queued', `attempt ${n} ${retry.kind}: ${result.reason}; attempt ${n + 1} runs${when}${more}`, { ...ended, ...keyed, memMb: nextMemMb });
    return;
  }
  out.jobTo(job, 'failed', retry.why ? `${result.reason} (${retry.why})` : result.reason, { ...ended, ...keyed });
}

/**
 * `job` has succeeded (or was skipped): the jobs waiting for it that wait for nothing else now are queued, and a
 * deferred job whose expansion it was the last unfinished job of gathers their outputs.
 */
export function queueReady(out: DecisionBuilder, job: JobState): void {
  for (const next of job.dependents) {
    if (out.stillWaitingOn(next) !== 0) continue;
    const status = out.statusOf(next);
    if (status === 'waiting') out.jobTo(next, 'queued', 'upstream jobs succeeded');
    else if (status === 'running' && expansionOf(next.spec)) out.effect({ kind: 'gather', jobId: next.job.id });
  }
}

export type RetryDecision = { again: true; kind: RetryOn; delaySeconds: number; nextMemMb: number } | { again: false; why?: string };

/** Whether a failed attempt is followed by another (the tool's retry policy, or the worker's), when and with what memory. */
export function retryOf(job: JobState, result: AttemptResult, memMb: number, worker: Pick<WorkerView, 'retry' | 'memoryMb'>): RetryDecision {
  const kind = failureKind(result.outcome, result.exitCode);
  if (kind === undefined) return { again: false };
  let policy = worker.retry;
  const retry = job.spec.kind === 'tool' ? job.spec.retry : runOf(job.spec)?.retry;
  if (retry) {
    try {
      policy = readRetryPolicy(retry, 'retry', worker.retry, parseSizeMb);
    } catch {
      policy = worker.retry; // checked when the tool was put; a policy this version cannot read falls back to the default
    }
  }
  if (!policy.on.includes(kind)) return { again: false };
  const attempt = job.job.attempt;
  if (attempt >= policy.maxAttempts) {
    return policy.maxAttempts > 1 ? { again: false, why: `attempt ${attempt} of ${policy.maxAttempts}, no retries left` } : { again: false };
  }
  let nextMemMb = memMb;
  if (kind === 'out_of_memory' && policy.memoryFactor > 1) {
    const more = nextMemory(policy, memMb, worker.memoryMb);
    if (more === undefined) return { again: false, why: `no more memory to give than ${memMb} MB` };
    nextMemMb = more;
  }
  return { again: true, kind, delaySeconds: backoffBefore(policy, attempt + 1), nextMemMb };
}

/**
 * A lookup in the call cache ahead of the job's start ended. A hit: the job is done, as if it had run (it was
 * reported started when the hit was taken). A miss: it goes back to the queue and runs later with the key made.
 */
export function cacheProbed(state: TaskState, job: JobState, event: CacheProbed, worker: WorkerView): Decision {
  const out = new DecisionBuilder(state.task);
  if (event.hit) ended(out, state, job, { result: event.hit, killedFor: undefined, memMb: event.memMb, at: event.at }, worker);
  else out.effect({ kind: 'not-started', jobId: job.job.id });
  return out.build();
}

/**
 * A worker has claimed the task (a new task, or one whose worker died or shut down): what an earlier owner left.
 * A job with an executor's handle is followed, not run again, where the executor can; a job found running without
 * one died with its worker and runs again from scratch, unless that keeps happening; jobs waiting for nothing are
 * queued.
 */
export function takeOver(state: TaskState, at: number, worker: WorkerView): Decision {
  const out = new DecisionBuilder(state.task);
  for (const entry of state.jobs) {
    const { job } = entry;
    if (isTerminalJob(job.status)) continue;
    if (job.externalId !== null && worker.adopts && entry.spec.kind === 'tool') {
      // Its job may still be alive outside any worker (a Slurm job, a container): wait for it, do not run it again.
      out.effect({ kind: 'adopt', jobId: job.id, handle: job.externalId });
      out.effect({ kind: 'log', level: 'info', message: 'adopting a job its previous worker started', fields: { job: job.id, handle: job.externalId } });
      continue;
    }
    if (job.status !== 'running') continue;
    if (expansionOf(entry.spec)) {
      // It runs nowhere: it waits for the jobs it added, and gathers them once they have ended.
      if (entry.waitingOn === 0) out.effect({ kind: 'gather', jobId: job.id });
      continue;
    }
    const lost: JobAttempt = {
      attempt: job.attempt,
      outcome: 'lost',
      exitCode: null,
      reason: 'its worker was lost while it ran',
      memMb: job.memMb,
      peakRssBytes: null,
      startedAt: job.startedAt,
      endedAt: at,
    };
    const attempts = [...job.attempts, lost];
    if (job.attempt >= worker.maxRestarts) {
      out.jobTo(entry, 'failed', `its worker was lost ${job.attempt} times while this job was running`, { endedAt: at, attempts });
    } else {
      out.jobTo(entry, 'queued', `runs again from scratch: its worker was lost while attempt ${job.attempt} was running`, { attempts });
    }
    const fields = { job: job.id, status: out.statusOf(entry) };
    out.effect({ kind: 'log', level: 'warn', message: 'took over a job whose worker was lost while it ran', fields });
  }
  for (const entry of state.jobs) {
    if (out.statusOf(entry) === 'waiting' && entry.waitingOn === 0) out.jobTo(entry, 'queued', 'upstream jobs succeeded');
  }
  return out.build();
}

/** What a job keeps of its call-cache key (none when none was made). */
function keyOf(result: AttemptResult): JobPatch {
  if (result.cacheKey === undefined) return {};
  return { cacheKey: result.cacheKey, cacheParts: result.cacheParts as unknown as Json, cacheLookup: result.cacheLookup ?? null };
}

/** The record of an ended attempt, kept on its job (docs/tasks.md, "Retries"). */
function attemptOf(job: Readonly<Job>, result: AttemptResult, memMb: number): JobAttempt {
  return {
    attempt: job.attempt,
    outcome: result.outcome,
    exitCode: result.exitCode,
    reason: result.reason,
    memMb,
    peakRssBytes: result.peakRssBytes ?? null,
    startedAt: result.startedAt,
    endedAt: result.endedAt,
  };
}
