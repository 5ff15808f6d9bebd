import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { usageError } from '../../exit.js';
import { printJson } from '../../output.js';
import { resolveJob } from './shared.js';

/** `gdflow task logs`: the output of one job, or of every job with a header each. */
export function registerTaskLogs(task: Command): void {
  clientCommand(task.command('logs <task_id> [job]').description('print job logs (stdout then stderr): of one job (JOB: job id or node id), or of every job'), { json: 'print a JSON list of {job_id, node_id, status, log} instead of the raw logs' })
    .option('--stream <name>', 'only stdout or stderr')
    .action(async (taskId: string, ref: string | undefined, flags: ClientFlags & { stream?: string }) => {
      if (flags.stream !== undefined && flags.stream !== 'stdout' && flags.stream !== 'stderr') throw usageError(`--stream must be stdout or stderr, not '${flags.stream}'`);
      const stream = flags.stream as 'stdout' | 'stderr' | undefined;
      const client = clientFor(flags);
      const jobs = ref ? [await resolveJob(client, taskId, ref)] : (await client.listJobs(taskId)).jobs;
      const logs = [];
      for (const job of jobs) logs.push({ job_id: job.job_id, node_id: job.node_id, status: job.status, log: await client.getJobLog(taskId, job.job_id, stream) });
      if (flags.json) return printJson(logs);
      for (const entry of logs) {
        if (!ref) process.stdout.write(`==> ${entry.node_id} (${entry.status}) <==\n`);
        process.stdout.write(entry.log);
        if (!ref && entry.log !== '' && !entry.log.endsWith('\n')) process.stdout.write('\n');
      }
    });
}
