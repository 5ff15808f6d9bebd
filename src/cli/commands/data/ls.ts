import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { formatBytes, formatTime, printJson, printTable } from '../../output.js';

/** `gdflow data ls`: items below a prefix. */
export function registerDataLs(data: Command): void {
  clientCommand(data.command('ls [prefix]').description("list data items below a prefix (default '/': everything in your account)"), { json: true }).action(
    async (prefix: string | undefined, flags: ClientFlags) => {
      const list = await clientFor(flags).listData(prefix ?? '/');
      if (flags.json) return printJson(list);
      printTable(
        list.items,
        [
          { header: 'name', value: (i) => i.name },
          { header: 'size', value: (i) => formatBytes(i.size), right: true },
          { header: 'modified', value: (i) => formatTime(i.modified_time) },
        ],
        'no data items',
      );
    },
  );
}
