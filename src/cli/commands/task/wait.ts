import type { Command } from 'commander';
import { clientCommand, clientFor, contextArgs, type ClientFlags } from '../../context.js';
import { secondsOption } from '../../documents.js';
import { endOfFollow, followTask } from '../../follow-task.js';

/** `gdflow task wait`: follow a task to its end with live progress; exit 1 unless it succeeded. */
export function registerTaskWait(task: Command): void {
  clientCommand(
    task
      .command('wait <task_id>')
      .description(
        'follow a task until it ends, showing nodes done / total and the running jobs; exits 1 if it failed or was stopped, ' +
          '130 on Ctrl-C (the task keeps running)',
      ),
    { json: 'follow quietly, then print the ended task with its jobs as JSON' },
  )
    .option('--interval <seconds>', 'poll interval', '1')
    .option('--timeout <seconds>', 'give up (exit 1) after this long')
    .action(async (taskId: string, flags: ClientFlags & { interval: string; timeout?: string }) => {
      const { task: ended, jobs } = await followTask(clientFor(flags), taskId, {
        intervalMs: secondsOption(flags.interval, '--interval') * 1000,
        ...(flags.timeout ? { timeoutMs: secondsOption(flags.timeout, '--timeout') * 1000 } : {}),
        quiet: Boolean(flags.json),
        context: contextArgs(flags),
      });
      endOfFollow(ended, jobs, flags.json ? { ...ended, jobs } : undefined);
    });
}
