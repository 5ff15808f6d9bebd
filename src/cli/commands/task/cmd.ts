import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { printJson, say } from '../../output.js';
import { resolveJob } from './shared.js';

/** `gdflow task cmd`: the command line a job runs, as rendered from its tool's template. */
export function registerTaskCmd(task: Command): void {
  clientCommand(task.command('cmd <task_id> <job>').description('print the rendered command of a job (JOB: job id or node id)'), {
    json: 'print {job_id, node_id, cmd} as JSON instead of the command alone',
  }).action(async (taskId: string, ref: string, flags: ClientFlags) => {
    const client = clientFor(flags);
    const job = await resolveJob(client, taskId, ref);
    const { cmd } = await client.getJobCommand(taskId, job.job_id);
    if (flags.json) return printJson({ job_id: job.job_id, node_id: job.node_id, cmd });
    say(cmd);
  });
}
