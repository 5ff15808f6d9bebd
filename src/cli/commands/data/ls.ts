import type { Command } from 'commander';
import type { DataItem } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { formatBytes, formatTime, printJson, printTable, type Column } from '../../output.js';

/** "task sample1, node align (partial)": what produced an item, when it is a task's output. */
function producedBy(by: DataItem['produced_by']): string | null {
  if (!by) return null;
  const node = by.node_id === null ? '' : `, node ${by.node_id}`;
  const state = by.task_status === null ? ' (task deleted)' : by.partial ? ` (partial: the task ${by.task_status})` : '';
  return `task ${by.task_name}${node}${state}`;
}

/** `gdflow data ls`: items below a prefix. */
export function registerDataLs(data: Command): void {
  const description =
    "list data items below a prefix (default '/': everything in your account), or the item a name without a trailing / names, " +
    'with the task and node that produced each';
  clientCommand(data.command('ls [prefix]').description(description), { json: true }).action(async (prefix: string | undefined, flags: ClientFlags) => {
    const list = await clientFor(flags).listData(prefix ?? '/');
    if (flags.json) return printJson(list);
    const columns: Array<Column<DataItem>> = [
      { header: 'name', value: (i) => i.name },
      { header: 'size', value: (i) => formatBytes(i.size), right: true },
      { header: 'modified', value: (i) => formatTime(i.modified_time) },
    ];
    // The producers' column where some item is a task's output (uploads have none).
    if (list.items.some((i) => i.produced_by)) columns.push({ header: 'produced by', value: (i) => producedBy(i.produced_by) });
    printTable(list.items, columns, 'no data items');
  });
}
