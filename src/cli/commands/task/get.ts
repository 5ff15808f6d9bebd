import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { missingTask } from '../../not-found.js';
import { formatDuration, formatTime, printJson, say } from '../../output.js';

/** `gdflow task get`: one task's state and progress. */
export function registerTaskGet(task: Command): void {
  clientCommand(task.command('get <task_id>').description("show a task's state, progress and times"), { json: true }).action(async (taskId: string, flags: ClientFlags) => {
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
    for (const [key, value] of rows) say(`${`${key}:`.padEnd(13)}${value}`);
  });
}
