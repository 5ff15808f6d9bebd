import type { Command } from 'commander';
import { TaskWaitTimeout, type Client } from '../../../client/client.js';
import { isTerminalTask, type Job, type Task } from '../../../client/types.js';
import { clientCommand, clientFor, contextArgs, type ClientFlags } from '../../context.js';
import { secondsOption } from '../../documents.js';
import { CliError, EXIT } from '../../exit.js';
import { interruptible } from '../../interrupt.js';
import { missingTask } from '../../not-found.js';
import { formatDuration, printJson, runTime, say } from '../../output.js';
import { jobsOf } from './shared.js';

interface StopFlags extends ClientFlags {
  wait: boolean;
  timeout: string;
}

/** `1 succeeded, 2 cancelled`: the jobs by state. */
function jobCounts(jobs: Job[]): string {
  const counts = new Map<string, number>();
  for (const job of jobs) counts.set(job.status, (counts.get(job.status) ?? 0) + 1);
  return [...counts.entries()].map(([status, n]) => `${n} ${status}`).join(', ') || 'none';
}

const described = (task: Task): string => `task ${task.task_name} (${task.task_id})`;

/**
 * Stop one task and wait (up to `timeoutMs`) until its worker has killed its jobs: the state after the stop. A task
 * that had already ended is left as it was.
 */
async function stopOne(client: Client, taskId: string, flags: StopFlags, timeoutMs: number): Promise<{ task: Task; jobs: Job[]; line: string }> {
  const before = await client.getTask(taskId).catch(missingTask(client, taskId));
  if (isTerminalTask(before.status)) {
    return { task: before, jobs: await jobsOf(client, taskId), line: `${described(before)} had already ${before.status}: nothing to stop` };
  }
  await client.stopTask(taskId);
  if (!flags.wait) {
    const now = await client.getTask(taskId);
    return { task: now, jobs: [], line: `${described(now)}: stop requested (${now.status})` };
  }
  const waiting = client.waitForTask(taskId, { intervalMs: 250, timeoutMs });
  const context = contextArgs(flags);
  try {
    const interrupted = () => `interrupted: the stop of ${described(before)} was requested and goes on; see it with: gdflow task get ${taskId}${context}`;
    const task = await interruptible(waiting, interrupted);
    const jobs = await jobsOf(client, taskId);
    const nodes = `${task.progress.done}/${task.progress.total} nodes done`;
    return { task, jobs, line: `${described(task)} ${task.status} after ${formatDuration(runTime(task))}: ${nodes}; jobs: ${jobCounts(jobs)}` };
  } catch (error) {
    if (error instanceof TaskWaitTimeout) {
      const still = `${described(error.task)} is still ${error.task.status} ${timeoutMs / 1000} s after the stop`;
      throw new CliError(`${still}; follow it with: gdflow task wait ${taskId}${context}`, EXIT.failed);
    }
    throw error;
  }
}

/** `gdflow task stop`: kill running jobs, start nothing further, and say the state the task ended in. */
export function registerTaskStop(task: Command): void {
  clientCommand(
    task.command('stop <task_id...>').description('stop tasks: running jobs are killed and nothing further starts; prints the state each task ends in'),
    { json: 'print the tasks after the stop, with their jobs, as JSON' },
  )
    .option('--no-wait', 'only request the stop: print the state the task is in at once (usually still running)')
    .option('--timeout <seconds>', 'how long to wait for a task to end after its stop (exit 1 if it has not)', '60')
    .action(async (ids: string[], flags: StopFlags) => {
      const timeoutMs = secondsOption(flags.timeout, '--timeout') * 1000;
      const client = clientFor(flags);
      const stopped = [];
      for (const id of ids) {
        const result = await stopOne(client, id, flags, timeoutMs);
        if (!flags.json) say(result.line);
        stopped.push({ ...result.task, jobs: result.jobs });
      }
      if (flags.json) printJson(stopped);
    });
}

/** `gdflow task delete`: remove a task, its jobs and its files (stopping it first if needed). */
export function registerTaskDelete(task: Command): void {
  clientCommand(task.command('delete <task_id...>').description('delete tasks with their jobs and working files (stored outputs stay)')).action(
    async (ids: string[], flags: ClientFlags) => {
      const client = clientFor(flags);
      for (const id of ids) {
        await client.deleteTask(id).catch(missingTask(client, id));
        say(`task ${id} deleted`);
      }
    },
  );
}
