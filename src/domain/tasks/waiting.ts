/**
 * What a job that has not started waits for (docs/tasks.md, "Why a job waits"). The engine and the executors write a
 * wait into the job's reason, which travels through the store to every API process (an API replica does not see a
 * worker's memory); `waitingFor` reads it back, or says what the job waits for when nobody wrote it: its upstream
 * jobs, a worker, the task's start time. Every wait reads "waiting for ...".
 */
import type { JobStatus, TaskStatus } from './states.js';

const WAITING = 'waiting for ';

/** Whether a reason is a wait written by the engine or an executor. */
export const isWait = (reason: string): boolean => reason.startsWith(WAITING);

/** `512 MB`, `4 GB`, `1.5 GB`. */
export function formatMemory(mb: number): string {
  const value = Math.max(0, mb);
  if (value < 1024) return `${Math.round(value)} MB`;
  const gb = value / 1024;
  return `${Number.isInteger(gb) ? gb : gb.toFixed(1)} GB`;
}

const cpus = (n: number): string => `${n} ${n === 1 ? 'CPU' : 'CPUs'}`;

/**
 * A queued job its worker cannot start yet: "waiting for 2 CPUs (1 free)", "waiting for 8 GB of memory (2.5 GB free)",
 * or both, joined by "and". `need` is what the job asks for, `free` what the worker has left now. (Each wait is named
 * `reason` where it is made: the console's check that it translates every reason finds them there.)
 */
export function resourceWait(need: { cpu: number; memMb: number }, free: { cpus: number; memMb: number }): string {
  const parts: string[] = [];
  if (need.cpu > free.cpus) parts.push(`${cpus(need.cpu)} (${Math.max(0, free.cpus)} free)`);
  if (need.memMb > free.memMb) parts.push(`${formatMemory(need.memMb)} of memory (${formatMemory(free.memMb)} free)`);
  const reason = parts.length > 0 ? `waiting for ${parts.join(' and ')}` : 'waiting for a free slot';
  return reason;
}

/** A job whose container image is being pulled before it can start (the podman and docker executors). */
export function imagePullWait(image: string): string {
  const reason = `waiting for its image ${image} to be pulled`;
  return reason;
}

/** A job held back by the Slurm executor's cap on jobs in Slurm's queue (`--slurm-max-queued`). */
export function slurmTurnWait(limit: number): string {
  const reason = `waiting for its turn to be submitted to Slurm (this worker has ${limit} jobs in Slurm's queue, its --slurm-max-queued)`;
  return reason;
}

/** What Slurm's most common pending reasons (squeue's %r) mean, for a reason a user can read without the manual. */
const SLURM_REASONS: Array<[RegExp, string]> = [
  [/^None$/, 'not yet looked at by the scheduler'],
  [/^Resources$/, 'no node has the free CPUs or memory it asks for yet'],
  [/^Priority$/, 'jobs of higher priority are ahead of it'],
  [/^Dependency$/, 'a job it depends on has not ended'],
  [/^BeginTime$/, 'its start time has not come'],
  [/^JobHeld(User|Admin)$/, 'it is held'],
  [/^ReqNodeNotAvail|^NodeDown|^PartitionDown|^PartitionInactive/, 'the nodes it may run on are not available'],
  [/^Partition(Node|Time)Limit$/, 'it asks for more than its partition allows'],
  [/^QOS/, 'a limit of its quality of service'],
  [/^Assoc/, 'a limit of its Slurm account'],
  [/^Licenses$/, 'licenses it needs are in use'],
];

/** A job submitted to Slurm and pending in its queue, with squeue's reason: "waiting for Slurm to start it: Resources (...)". */
export function slurmWait(pending: string): string {
  const shown = pending.trim() || 'None';
  const meaning = SLURM_REASONS.find(([pattern]) => pattern.test(shown))?.[1];
  const reason = meaning ? `waiting for Slurm to start it: ${shown} (${meaning})` : `waiting for Slurm to start it: ${shown}`;
  return reason;
}

export interface WaitContext {
  taskStatus: TaskStatus;
  /** Whether a worker holds the task now (a live lease). */
  taskHeld: boolean;
  /** The task's start time (unix seconds), for a scheduled task. */
  scheduleAt: number | null;
  /** The job's upstream jobs: their nodes and states (those of a job that waits for them). */
  upstream: Array<{ nodeId: string; status: JobStatus }>;
}

/**
 * What a job waits for, or null when it waits for nothing (it runs, or ended). A queued or running job shows the wait
 * written into its reason (resources, an image pull, Slurm's queue); a job nothing was written for is told from its
 * state and its task's: its upstream jobs, the scheduled start, a worker to take the task, or its start.
 */
export function waitingFor(job: { status: JobStatus; reason: string }, context: WaitContext): string | null {
  if (job.status === 'running') return isWait(job.reason) ? job.reason : null;
  if (job.status !== 'waiting' && job.status !== 'queued') return null;
  if (context.taskStatus === 'scheduled' && context.scheduleAt !== null) {
    return `waiting for the scheduled start, ${new Date(context.scheduleAt * 1000).toISOString()}`;
  }
  if (job.status === 'waiting') {
    const pending = context.upstream.filter((u) => u.status !== 'succeeded').map((u) => u.nodeId);
    if (pending.length > 0) return pending.length === 1 ? `waiting for upstream job ${pending[0]}` : `waiting for upstream jobs ${pending.join(', ')}`;
  }
  if (!context.taskHeld) return 'waiting for a worker to take the task';
  if (job.status === 'queued' && isWait(job.reason)) return job.reason;
  return 'waiting for its worker to start it';
}
