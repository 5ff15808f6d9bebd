import type { Command } from 'commander';
import { clientCommand, clientFor, contextArgs, type ClientFlags } from '../../context.js';
import { secondsOption } from '../../documents.js';
import { CliError, EXIT } from '../../exit.js';
import { afterStart } from '../../follow-task.js';
import { missingTask } from '../../not-found.js';
import { printJson, say } from '../../output.js';
import { resolveJob } from './shared.js';

/** A job id starts with its task's id: `<task>_<hex>_<node>`. */
const TASK_OF_JOB = /^([0-9a-f]{24})_[0-9a-f]+_/;

/** `gdflow task explain`: why a job was or was not a call-cache hit (docs/tasks.md, "Explain a miss"). */
export function registerTaskExplain(task: Command): void {
  clientCommand(
    task
      .command('explain <job> [node]')
      .description(
        'say why a job was or was not served from the call cache: the nearest earlier job of its tool and which parts of the key differ (JOB: a job id; or TASK_ID NODE)',
      ),
    { json: true },
  ).action(async (first: string, node: string | undefined, flags: ClientFlags) => {
    const client = clientFor(flags);
    let taskId: string;
    let jobId: string;
    if (node !== undefined) {
      taskId = first;
      jobId = (await resolveJob(client, taskId, node)).job_id;
    } else {
      const match = TASK_OF_JOB.exec(first);
      if (!match) throw new CliError(`'${first}' is not a job id (<task id>_<hex>_<node>); give a task id and a node id instead`, EXIT.usage);
      taskId = match[1]!;
      jobId = first;
    }
    const explanation = await client.explainJob(taskId, jobId);
    if (flags.json) return printJson(explanation);
    say(`${explanation.job_id}: ${explanation.summary}`);
    if (explanation.source) say(`reused: job ${explanation.source.job_id}, a ${explanation.source.language} (task ${explanation.source.task_id})`);
    if (explanation.nearest) say(`nearest earlier job: ${explanation.nearest.job_id} (task ${explanation.nearest.task_id}, ${explanation.nearest.status})`);
    for (const difference of explanation.differences) say(`  - ${difference.message}`);
  });
}

/** `gdflow task rerun`: the task again, reusing its succeeded jobs whose keys still match (docs/tasks.md, "Resume"). */
export function registerTaskRerun(task: Command): void {
  clientCommand(
    task
      .command('rerun <task_id>')
      .description(
        'run a task again with it as the reference task: same workflow version, parameters and outputs; only the jobs whose results cannot be reused run',
      ),
    { json: 'print the new task (the ended one with --wait) as JSON' },
  )
    .option('--wait', 'follow the new task to its end (exit 1 if it fails; Ctrl-C stops following, exit 130, the task keeps running)')
    .option('--interval <seconds>', 'poll interval with --wait', '1')
    .action(async (taskId: string, flags: ClientFlags & { wait?: boolean; interval: string }) => {
      const intervalMs = secondsOption(flags.interval, '--interval') * 1000;
      const client = clientFor(flags);
      const started = await client.rerunTask(taskId).catch(missingTask(client, taskId));
      const line = `started task ${started.task_id} (${started.task_name}), reusing what it can of ${taskId}`;
      await afterStart(client, started, line, { wait: Boolean(flags.wait), json: Boolean(flags.json), intervalMs, context: contextArgs(flags) });
    });
}
