import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { say } from '../../output.js';

/** `gdflow task stop`: kill running jobs, start nothing further (a no-op on an ended task). */
export function registerTaskStop(task: Command): void {
  clientCommand(task.command('stop <task_id...>').description('stop tasks: running jobs are killed and nothing further starts')).action(async (ids: string[], flags: ClientFlags) => {
    const client = clientFor(flags);
    for (const id of ids) {
      const result = await client.stopTask(id);
      say(`task ${id}: ${result?.status ?? 'stop requested'}`);
    }
  });
}

/** `gdflow task delete`: remove a task, its jobs and its files (stopping it first if needed). */
export function registerTaskDelete(task: Command): void {
  clientCommand(task.command('delete <task_id...>').description('delete tasks with their jobs and working files (stored outputs stay)')).action(async (ids: string[], flags: ClientFlags) => {
    const client = clientFor(flags);
    for (const id of ids) {
      await client.deleteTask(id);
      say(`task ${id} deleted`);
    }
  });
}
