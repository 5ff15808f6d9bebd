/** Rows of the tasks and jobs tables to the store's records and back, and the inserts every task write shares. */

import type { Insertable, Kysely, Selectable } from 'kysely';
import { stringifyExactJson } from '../contract/exact-json.js';
import { parseJson, type Owner } from './definition-rows.js';
import { jobPatchColumns } from './job-changes.js';
import type { Database, JobsTable, TasksTable } from './schema.js';
import type { Job, JobStatus, NewJob, Task, TaskStatus } from './store.js';

export function toTask(row: Selectable<TasksTable> & Owner & { held_by: string | null }): Task {
  return {
    id: row.id,
    projectId: row.project_id,
    accountName: row.account_name,
    projectName: row.project_name,
    name: row.name,
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    workflowVersion: row.workflow_version,
    userName: row.user_name,
    status: row.status as TaskStatus,
    reason: row.reason,
    parameters: parseJson(row.parameters) ?? {},
    plan: parseJson(row.plan) ?? {},
    scheduleAt: row.schedule_at,
    stopRequested: row.stop_requested !== 0,
    deleteRequested: row.delete_requested !== 0,
    heldBy: row.held_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    modifiedAt: row.modified_at,
  };
}

export function toJob(row: Selectable<JobsTable>): Job {
  return {
    id: row.id,
    taskId: row.task_id,
    nodeId: row.node_id,
    name: row.name,
    status: row.status as JobStatus,
    reason: row.reason,
    command: row.command,
    spec: parseJson(row.spec) ?? {},
    attempt: row.attempt,
    exitCode: row.exit_code,
    cpu: row.cpu,
    memMb: row.mem_mb,
    externalId: row.external_id,
    imageDigest: row.image_digest,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    modifiedAt: row.modified_at,
    attempts: (JSON.parse(row.attempts) as Job['attempts']) ?? [],
    cacheKey: row.cache_key,
    cacheParts: parseJson(row.cache_parts),
    cachedFrom: row.cached_from,
    cacheLookup: row.cache_lookup as Job['cacheLookup'],
    outputStamps: parseJson(row.output_stamps) as Job['outputStamps'],
    outputs: parseJson(row.outputs),
  };
}

/** A new job's row (NewJob has what the plan or an expansion decides; the rest starts empty). */
function jobRow(job: NewJob, at: number): Insertable<JobsTable> {
  const row: Insertable<JobsTable> = {
    id: job.id,
    task_id: job.taskId,
    node_id: job.nodeId,
    name: job.name,
    status: job.status,
    reason: job.reason,
    command: job.command,
    spec: stringifyExactJson(job.spec),
    attempt: job.attempt,
    exit_code: null,
    cpu: job.cpu,
    mem_mb: job.memMb,
    external_id: null,
    image_digest: null,
    started_at: null,
    ended_at: null,
    modified_at: at,
    // Every row of a multi-row insert names the same columns: those an ended job sets are named in all (their defaults).
    attempts: '[]',
    cache_key: null,
    cache_parts: null,
    cached_from: null,
    cache_lookup: null,
    output_stamps: null,
  };
  return job.ended ? { ...row, ...(jobPatchColumns(job.ended) as Partial<Insertable<JobsTable>>) } : row;
}

/** Insert jobs in chunks: SQLite limits the number of bound parameters per statement. */
export async function insertJobs(trx: Kysely<Database>, jobs: readonly NewJob[], at: number): Promise<void> {
  for (let i = 0; i < jobs.length; i += 50) {
    await trx
      .insertInto('jobs')
      .values(jobs.slice(i, i + 50).map((job) => jobRow(job, at)))
      .execute();
  }
}

/** The task events of jobs that ended as they were created (NewJob.ended): in chunks, as the jobs. */
export async function insertEndedJobEvents(trx: Kysely<Database>, jobs: readonly NewJob[], at: number): Promise<void> {
  const events = jobs
    .filter((job) => job.ended)
    .map((job) => ({ task_id: job.taskId, job_id: job.id, from_status: null, to_status: job.status, reason: job.reason, at }));
  for (let i = 0; i < events.length; i += 200)
    await trx
      .insertInto('task_events')
      .values(events.slice(i, i + 200))
      .execute();
}

/** Write a task event when a patch changes a task's or job's status. */
export async function recordTransition(
  trx: Kysely<Database>,
  change: { taskId: string; jobId: string | null; from: string; patch: { status?: string; reason?: string }; at: number },
): Promise<void> {
  const { taskId, jobId, from, patch, at } = change;
  if (patch.status === undefined || patch.status === from) return;
  await trx
    .insertInto('task_events')
    .values({ task_id: taskId, job_id: jobId, from_status: from, to_status: patch.status, reason: patch.reason ?? '', at })
    .execute();
}
