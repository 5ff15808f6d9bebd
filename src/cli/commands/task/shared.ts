import type { Client } from '../../../client/client.js';
import type { Job } from '../../../client/types.js';
import { missingError, missingTask } from '../../not-found.js';

/** The jobs of a task; an unknown task id is named, with the nearest task. */
export async function jobsOf(client: Client, taskId: string): Promise<Job[]> {
  return (await client.listJobs(taskId).catch(missingTask(client, taskId))).jobs;
}

/** A JOB argument: a job id (`<task>_<hex>_<node>`) or the node id of a job of the task. */
export async function resolveJob(client: Client, taskId: string, ref: string): Promise<Job> {
  const jobs = await jobsOf(client, taskId);
  const job = jobs.find((j) => j.job_id === ref) ?? jobs.find((j) => j.node_id === ref);
  if (!job)
    throw missingError(
      'job or node',
      ref,
      `task ${taskId}`,
      jobs.map((j) => j.node_id),
    );
  return job;
}
