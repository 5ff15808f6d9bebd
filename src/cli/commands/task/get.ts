import type { Command } from 'commander';
import type { Client } from '../../../client/client.js';
import { isTerminalTask } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { missingTask } from '../../not-found.js';
import { formatDuration, formatTime, printJson, say } from '../../output.js';

/** The jobs whose upstream jobs are done (or that wait in Slurm's queue), with what each waits for. */
async function waitingJobs(client: Client, taskId: string): Promise<Array<[string, string]>> {
  const { jobs } = await client.listJobs(taskId);
  return jobs.filter((j) => j.waiting_for && (j.status === 'queued' || j.status === 'running')).map((j) => [j.node_id, j.waiting_for!]);
}

/** `gdflow task get`: one task's state and progress. */
export function registerTaskGet(task: Command): void {
  const description = "show a task's state, progress and times, and what its jobs that could run wait for";
  clientCommand(task.command('get <task_id>').description(description), { json: true }).action(async (taskId: string, flags: ClientFlags) => {
    const client = clientFor(flags);
    const t = await client.getTask(taskId).catch(missingTask(client, taskId));
    if (flags.json) return printJson(t);
    const rows: Array<[string, string]> = [
      ['task', `${t.task_name} (${t.task_id})`],
      ['workflow', `${t.workflow_name} version ${t.workflow_version}`],
      ['status', t.status],
      ['reason', t.reason || '-'],
      ['progress', `${t.progress.done}/${t.progress.total} nodes done, ${t.progress.running} running, ${t.progress.failed} failed (${t.progress.percent}%)`],
      ['user', t.user_name],
      ['created', formatTime(t.createTime)],
      ['started', formatTime(t.startTime)],
      ['ended', formatTime(t.endTime)],
      ['duration', t.startTime === null ? '-' : formatDuration((t.endTime ?? Date.now() / 1000) - t.startTime)],
    ];
    if (t.description) rows.push(['description', t.description]);
    if (!isTerminalTask(t.status)) for (const [node, what] of await waitingJobs(client, t.task_id)) rows.push(['waiting', `${node}: ${what}`]);
    for (const [key, value] of rows) say(`${`${key}:`.padEnd(13)}${value}`);
  });
}
