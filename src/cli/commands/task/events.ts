import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { missingTask } from '../../not-found.js';
import { formatTime, printJson, printTable } from '../../output.js';

/** `gdflow task events`: every state change of a task and of its jobs, oldest first, with the reason of each. */
export function registerTaskEvents(task: Command): void {
  clientCommand(task.command('events <task_id>').description("list a task's state changes and its jobs', oldest first, each with its reason"), {
    json: true,
  }).action(async (taskId: string, flags: ClientFlags) => {
    const client = clientFor(flags);
    const { events } = await client.getTaskEvents(taskId).catch(missingTask(client, taskId));
    if (flags.json) return printJson(events);
    // A job id is <task_id>_<hex>_<node_id>: the node id is what users know the job by.
    const node = (jobId: string | null) => (jobId === null ? 'task' : jobId.slice(jobId.indexOf('_', jobId.indexOf('_') + 1) + 1));
    printTable(
      events,
      [
        { header: 'time', value: (e) => formatTime(e.at) },
        { header: 'of', value: (e) => node(e.job_id) },
        { header: 'from', value: (e) => e.from },
        { header: 'to', value: (e) => e.to },
        { header: 'reason', value: (e) => e.reason },
      ],
      'no events',
    );
  });
}
