import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { positiveInteger } from '../../documents.js';
import { usageError } from '../../exit.js';
import { formatDuration, formatTime, printJson, printTable, runTime } from '../../output.js';

/** A `--since` value: `2h`, `3d`, `30m`, or unix seconds. */
function since(value: string): number {
  const match = /^(\d+)([smhd])$/.exec(value);
  if (match) return Math.floor(Date.now() / 1000) - Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  if (/^\d+$/.test(value)) return Number(value);
  throw usageError(`--since must be like 30m, 2h, 7d or unix seconds, not '${value}'`);
}

/** `gdflow task ls`: tasks of the project, newest first. */
export function registerTaskLs(task: Command): void {
  clientCommand(task.command('ls').description('list tasks of the project, newest first'), { json: true })
    .option('--size <n>', 'how many tasks (1-1000)', '50')
    .option('--offset <n>', 'skip this many newest tasks', '0')
    .option('--since <when>', 'only tasks created since then: 30m, 2h, 7d or unix seconds')
    .option('--status <status>', 'only tasks in this state, or in one of several: running,queued')
    .option('--name <text>', 'only tasks whose name contains this text')
    .action(async (flags: ClientFlags & { size: string; offset: string; since?: string; status?: string; name?: string }) => {
      const offset = flags.offset === '0' ? 0 : positiveInteger(flags.offset, '--offset');
      const list = await clientFor(flags).listTasks({
        size: positiveInteger(flags.size, '--size'),
        offset,
        ...(flags.since ? { from: since(flags.since) } : {}),
        ...(flags.status ? { status: flags.status } : {}),
        ...(flags.name ? { name: flags.name } : {}),
      });
      if (flags.json) return printJson(list);
      printTable(
        list.task_list,
        [
          { header: 'task id', value: (t) => t.task_id },
          { header: 'name', value: (t) => t.task_name },
          { header: 'workflow', value: (t) => `${t.workflow_name} v${t.workflow_version}` },
          { header: 'status', value: (t) => t.status },
          { header: 'nodes', value: (t) => `${t.progress.done}/${t.progress.total}`, right: true },
          { header: 'created', value: (t) => formatTime(t.createTime) },
          { header: 'duration', value: (t) => formatDuration(runTime(t)), right: true },
        ],
        'no tasks',
      );
      // A name filter is counted up to a limit: past it, the server says only that more match.
      const total = list.total ?? `more than ${list.total_more_than ?? list.count}`;
      if (list.total === null || list.total > list.count) process.stdout.write(`(${list.count} of ${total}; see --size and --offset)\n`);
    });
}
