import type { Command } from 'commander';
import type { TaskOutput } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { formatBytes, note, printJson, printTable } from '../../output.js';

/** How an output's state reads in the table. */
function stateOf(output: TaskOutput): string {
  if (output.partial) return 'stored (partial)';
  return output.state.replace('_', ' ');
}

/** `gdflow task outputs`: what a task stored in the data store, and where each item came from. */
export function registerTaskOutputs(task: Command): void {
  clientCommand(
    task
      .command('outputs <task_id>')
      .description(
        "list what a task stored (or is to store) in the data store: each item's name, size and state, the node and job that wrote it " +
          "(a failed or stopped task's items are marked partial)",
      ),
    { json: true },
  ).action(async (taskId: string, flags: ClientFlags) => {
    const answer = await clientFor(flags).getTaskOutputs(taskId);
    if (flags.json) return printJson(answer);
    printTable(
      answer.outputs,
      [
        { header: 'name', value: (o) => o.name },
        { header: 'size', value: (o) => (o.size === null ? null : formatBytes(o.size)), right: true },
        { header: 'state', value: stateOf },
        { header: 'node', value: (o) => (o.node_id === null ? null : o.output ? `${o.node_id}.${o.output}` : o.node_id) },
        { header: 'store step', value: (o) => o.store_node_id },
        { header: 'job', value: (o) => o.job_id },
      ],
      `task ${answer.task_name} stores nothing in the data store (its workflow has no store step)`,
    );
    if (answer.partial) {
      const stored = answer.outputs.filter((o) => o.state === 'stored').length;
      note(`task ${answer.task_name} ${answer.status}: its ${stored} stored item(s) are partial outputs, what it stored before it ended`);
    }
    if (answer.outputs.some((o) => o.state === 'stored')) note('download one: gdflow data get NAME [FILE]');
  });
}
