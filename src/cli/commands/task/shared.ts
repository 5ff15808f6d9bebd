import type { Client } from '../../../client/client.js';
import type { Job } from '../../../client/types.js';
import { CliError, EXIT } from '../../exit.js';

/** A JOB argument: a job id (`<task>_<hex>_<node>`) or the node id of a job of the task. */
export async function resolveJob(client: Client, taskId: string, ref: string): Promise<Job> {
  const { jobs } = await client.listJobs(taskId);
  const job = jobs.find((j) => j.job_id === ref) ?? jobs.find((j) => j.node_id === ref);
  if (!job) throw new CliError(`task ${taskId} has no job or node '${ref}' (nodes: ${jobs.map((j) => j.node_id).join(', ') || 'none'})`, EXIT.failed);
  return job;
}
