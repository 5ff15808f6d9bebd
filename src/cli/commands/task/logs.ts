import type { Command } from 'commander';
import { clientCommand, clientFor, contextArgs, type ClientFlags } from '../../context.js';
import { secondsOption } from '../../documents.js';
import { usageError } from '../../exit.js';
import { note, printJson } from '../../output.js';
import { followLogs } from './follow-logs.js';
import { jobsOf, resolveJob } from './shared.js';

interface Flags extends ClientFlags {
  stream?: string;
  follow?: boolean;
  interval: string;
}

/** `gdflow task logs`: the output of one job, or of every job with a header each; with --follow, as it is written. */
export function registerTaskLogs(task: Command): void {
  clientCommand(task.command('logs <task_id> [job]').description('print job logs (stdout then stderr): of one job (JOB: job id or node id), or of every job'), {
    json: 'print a JSON list of {job_id, node_id, status, log} instead of the raw logs',
  })
    .option('--stream <name>', 'only stdout or stderr')
    .option('-f, --follow', "keep printing what running jobs write until they end (every job's: each line after its node); Ctrl-C stops, exit 130")
    .option('--interval <seconds>', 'how often --follow looks for more', '1')
    .action(async (taskId: string, ref: string | undefined, flags: Flags) => {
      if (flags.stream !== undefined && flags.stream !== 'stdout' && flags.stream !== 'stderr')
        throw usageError(`--stream must be stdout or stderr, not '${flags.stream}'`);
      if (flags.follow && flags.json) throw usageError('--follow prints the logs as they come; it does not go with --json');
      const stream = flags.stream;
      const intervalMs = secondsOption(flags.interval, '--interval') * 1000;
      const client = clientFor(flags);
      const jobs = ref ? [await resolveJob(client, taskId, ref)] : await jobsOf(client, taskId);
      if (flags.follow) {
        const ended = await followLogs(client, taskId, {
          ...(ref ? { jobId: jobs[0]!.job_id } : {}),
          streams: stream ? [stream] : ['stdout', 'stderr'],
          intervalMs,
          context: contextArgs(flags),
          write: (text) => process.stdout.write(text),
        });
        return note(ended.map((job) => `${job.node_id}: ${job.status}`).join(', ') || 'no jobs');
      }
      const logs = [];
      for (const job of jobs)
        logs.push({ job_id: job.job_id, node_id: job.node_id, status: job.status, log: await client.getJobLog(taskId, job.job_id, stream) });
      if (flags.json) return printJson(logs);
      for (const entry of logs) {
        if (!ref) process.stdout.write(`==> ${entry.node_id} (${entry.status}) <==\n`);
        process.stdout.write(entry.log);
        if (!ref && entry.log !== '' && !entry.log.endsWith('\n')) process.stdout.write('\n');
      }
    });
}
