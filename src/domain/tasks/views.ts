import type { Job, JobStatus, Task } from '../../store/store.js';
import { roundTime } from '../time.js';
import { progressOf } from './states.js';

const time = (seconds: number | null): number | null => (seconds === null ? null : roundTime(seconds));

/** The task object of docs/wire.md §4 (times are unix seconds; null while unknown). */
export function taskView(task: Task, jobCounts: Partial<Record<JobStatus, number>>) {
  const progress = progressOf(jobCounts);
  return {
    task_id: task.id,
    task_name: task.name,
    status: task.status,
    reason: task.reason,
    workflow_name: task.workflowName,
    workflow_version: task.workflowVersion,
    workflow_id: task.workflowId,
    user_name: task.userName,
    account: task.accountName,
    project: task.projectName,
    description: typeof task.parameters.description === 'string' ? task.parameters.description : '',
    createTime: time(task.createdAt),
    startTime: time(task.startedAt),
    endTime: time(task.endedAt),
    scheduleTime: time(task.scheduleAt),
    stop_requested: task.stopRequested,
    process: progress.percent,
    progress,
  };
}

/** The job object of docs/wire.md §4, with what it waits for (waiting.ts, waitingFor). */
/** Where a job stands in its task's graph: the node ids of the jobs it waits for, and of the job whose expansion added it. */
export interface JobLinks {
  upstream: string[];
  parent: string | null;
}

export function jobView(
  job: Job,
  alias = '',
  waitingFor: string | null = null,
  links: JobLinks = { upstream: [], parent: null },
  diskMb: number | null = null,
) {
  return {
    job_id: job.id,
    task_id: job.taskId,
    name: job.name,
    node_id: job.nodeId,
    alias,
    status: job.status,
    reason: job.reason,
    exit_code: job.exitCode,
    attempt: job.attempt,
    cpu: job.cpu,
    mem: `${job.memMb}m`,
    /** The disk space the job asked for (a WDL task's disks or a restart's debug_params disk), as mem is written; null: none asked. */
    disk: diskMb === null ? null : `${diskMb}m`,
    startTime: time(job.startedAt),
    endTime: time(job.endedAt),
    /** The digest of the container image the job ran in (podman and docker executors), or null. */
    image_digest: job.imageDigest,
    /** The job's handle outside gdflow, for a job that can outlive its worker: its Slurm job id or its container's name; else null. */
    external_id: job.externalId,
    /** The job whose outputs this one reused from the call cache; null when it ran (docs/tasks.md, "Call caching"). */
    cached_from: job.cachedFrom,
    /** Every attempt that ended, oldest first (docs/tasks.md, "Retries"). */
    attempts: job.attempts.map((a) => ({
      attempt: a.attempt,
      outcome: a.outcome,
      exit_code: a.exitCode,
      reason: a.reason,
      mem: `${a.memMb}m`,
      peak_rss_bytes: a.peakRssBytes,
      startTime: time(a.startedAt),
      endTime: time(a.endedAt),
    })),
    /** What a job that has not started waits for; null once it runs (docs/tasks.md, "Why a job waits"). */
    waiting_for: waitingFor,
    /** The node ids of the jobs it waits for (its graph's links: also a CWL run's, whose jobs are added as it runs). */
    upstream: links.upstream,
    /** The node id of the job whose expansion added it (a scatter's, a subworkflow's), or null (docs/tasks.md, "Deferred jobs"). */
    parent: links.parent,
  };
}
