import type { Json, NewJob } from '../../../store/store.js';
import type { JobSpec } from '../job-spec.js';
import { DecisionBuilder, type Decision } from './decision.js';
import type { KillReason } from './effects.js';
import { queueReady } from './job-rules.js';
import type { JobState, TaskState } from './state.js';

/**
 * The rules of deferred jobs (docs/tasks.md, "Deferred jobs"): a job whose work its resolver decides once its upstream
 * jobs have ended. The worker asks the resolver while the job is queued and tells these rules what it said; a job that
 * expanded is told, once the jobs it added have ended, what their outputs gather into. Pure, as job-rules.ts.
 */

/** A job an expansion adds, with its spec as the rules read it; it starts queued when it waits for nothing, else waiting. */
export type AddedJob = Omit<NewJob, 'status' | 'reason' | 'spec'> & { readonly spec: JobSpec };

/** What the resolver decided of a queued deferred job. */
export type Resolution =
  /** A run: the job stays queued, with its spec now saying what to run (and its CPU and memory), and starts as a tool job. */
  | { kind: 'run'; spec: JobSpec; command: string; cpu: number; memMb: number }
  /** Its outputs are known without running anything (an expression evaluated): it succeeds with them. */
  | { kind: 'value'; outputs: Json; reason: string }
  /** Nothing to do (a condition was false): it is skipped, with these outputs (nulls), and the jobs after it go on. */
  | { kind: 'skip'; outputs: Json; reason: string }
  /** It adds these jobs (none, for an empty scatter) and gathers their outputs once they have ended. */
  | { kind: 'expand'; spec: JobSpec; jobs: readonly AddedJob[] }
  /** It cannot be resolved (an expression failed, a value has the wrong type): it fails, for this reason. */
  | { kind: 'fail'; reason: string };

/** The resolver answered for a queued deferred job (or the worker aborted the question). */
export interface JobResolved {
  kind: 'job-resolved';
  jobId: string;
  resolution: Resolution;
  /** Why the worker aborted the resolution, if it did (the resolution is then not used). */
  killedFor: KillReason | undefined;
  /** When the resolver was asked, and now (unix seconds). */
  startedAt: number;
  at: number;
}

/** The outputs of the jobs a deferred job added were gathered into its own (or could not be). */
export interface JobGathered {
  kind: 'job-gathered';
  jobId: string;
  outcome: { outputs: Json } | { reason: string };
  killedFor: KillReason | undefined;
  at: number;
}

const killed = (because: KillReason): string => (because === 'fail-fast' ? 'not run: another node of the task failed' : 'the task was stopped');

export function jobResolved(state: TaskState, job: JobState, event: JobResolved): Decision {
  const out = new DecisionBuilder(state.task);
  // It was being resolved here, so nothing else could end it meanwhile; a resolution that comes too late changes nothing.
  if (out.statusOf(job) !== 'queued') return out.build();
  const { resolution, at } = event;
  if (event.killedFor === 'shutdown') {
    out.effect({ kind: 'ready', jobId: job.job.id });
  } else if (event.killedFor !== undefined) {
    out.jobTo(job, 'cancelled', killed(event.killedFor));
  } else if (resolution.kind === 'run') {
    const { spec, command, cpu, memMb } = resolution;
    out.patchJob(job, { spec: spec, command, cpu, memMb, reason: 'resolved into a command; waiting for resources' });
    out.effect({ kind: 'ready', jobId: job.job.id });
  } else if (resolution.kind === 'value') {
    start(out, job, event.startedAt, 'started');
    out.jobTo(job, 'succeeded', resolution.reason, { endedAt: at, exitCode: null, outputs: resolution.outputs });
    queueReady(out, job);
  } else if (resolution.kind === 'skip') {
    out.jobTo(job, 'skipped', resolution.reason, { endedAt: at, outputs: resolution.outputs });
    queueReady(out, job);
  } else if (resolution.kind === 'expand') {
    for (const added of resolution.jobs) {
      const waits = added.spec.deps.length > 0;
      const start = waits ? { status: 'waiting' as const, reason: 'waiting for upstream jobs' } : { status: 'queued' as const, reason: 'ready' };
      out.addJob({ ...added, spec: added.spec, ...start });
    }
    const n = resolution.jobs.length;
    start(out, job, event.startedAt, n === 0 ? 'nothing to run' : `waiting for the ${n} job(s) it added`, resolution.spec);
    if (n === 0) out.effect({ kind: 'gather', jobId: job.job.id });
  } else {
    out.jobTo(job, 'failed', resolution.reason, { endedAt: at });
  }
  return out.build();
}

/** A queued job starts running (a value being evaluated, an expansion gathering): its task runs from now on. */
function start(out: DecisionBuilder, job: JobState, at: number, reason: string, spec?: JobSpec): void {
  if (out.taskStatus === 'queued') out.taskTo('running', 'first job started', { startedAt: at });
  const patch = { attempt: job.job.attempt + 1, startedAt: at, endedAt: null, ...(spec ? { spec: spec as unknown as Json } : {}) };
  out.jobTo(job, 'running', reason, patch);
}

export function jobGathered(state: TaskState, job: JobState, event: JobGathered): Decision {
  const out = new DecisionBuilder(state.task);
  if (out.statusOf(job) !== 'running') return out.build();
  // A worker shutting down leaves it running: the task's next owner gathers it (job-rules.ts, takeOver).
  if (event.killedFor === 'shutdown') return out.build();
  if (event.killedFor !== undefined) out.jobTo(job, 'cancelled', killed(event.killedFor), { endedAt: event.at });
  else if ('outputs' in event.outcome) {
    out.jobTo(job, 'succeeded', 'the jobs it added ended', { endedAt: event.at, outputs: event.outcome.outputs });
    queueReady(out, job);
  } else out.jobTo(job, 'failed', event.outcome.reason, { endedAt: event.at });
  return out.build();
}
