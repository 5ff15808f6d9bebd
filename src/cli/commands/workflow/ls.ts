import type { Command } from 'commander';
import { notFoundAs } from '../../../client/client.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { formatTime, printJson, printTable } from '../../output.js';

/** `gdflow workflow ls`: every version of every workflow (or only the runnable ones). */
export function registerWorkflowLs(workflow: Command): void {
  clientCommand(workflow.command('ls').description('list the workflows of the project, one line per version'), { json: true })
    .option('--executable', 'only versions that can be run (status checked)')
    .option('--latest', 'only the latest version of each workflow')
    .action(async (flags: ClientFlags & { executable?: boolean; latest?: boolean }) => {
      const client = clientFor(flags);
      // Both lists answer 404 WorkflowNotExists for an empty project: that is an empty list.
      const list = await (flags.executable ? client.listExecutableWorkflows() : client.listWorkflows()).catch(notFoundAs({ items: [], workflow_url: '' }));
      const rows = list.items.flatMap((group) => (flags.latest ? group.slice(-1) : group));
      if (flags.json) return printJson(rows);
      printTable(
        rows,
        [
          { header: 'name', value: (w) => w.workflow_name },
          { header: 'version', value: (w) => w.workflow_version, right: true },
          { header: 'status', value: (w) => w.status },
          { header: 'modified', value: (w) => formatTime(w.modified_time) },
          { header: 'description', value: (w) => (w.description.length > 60 ? `${w.description.slice(0, 57)}...` : w.description) },
        ],
        'no workflows in this project',
      );
    });
}
