import type { Command } from 'commander';
import { notFoundAs } from '../../../client/client.js';
import type { WorkflowList } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { listEach, listedProjects, printListed, withListOwner, type ListFlags } from '../../owned-lists.js';
import { formatTime } from '../../output.js';

/** `gdflow workflow ls`: every version of every workflow (or only the runnable ones), then the public account's. */
export function registerWorkflowLs(workflow: Command): void {
  const command = clientCommand(
    workflow.command('ls').description("list the workflows of the project, one line per version, then the public account's (which every account can run)"),
    { json: "print JSON: every row, each with 'owner' (ACCOUNT/PROJECT)" },
  );
  withListOwner(command, 'workflows')
    .option('--executable', 'only versions that can be run (status checked)')
    .option('--latest', 'only the latest version of each workflow')
    .action(async (flags: ClientFlags & ListFlags & { executable?: boolean; latest?: boolean }) => {
      const listed = await listedProjects(clientFor(flags), flags);
      // Both lists answer 404 WorkflowNotExists for an empty project: that is an empty list.
      const sections = await listEach(listed, async (client) => {
        const read = flags.executable ? client.listExecutableWorkflows() : client.listWorkflows();
        const list = await read.catch(notFoundAs<WorkflowList>({ items: [], workflow_url: '' }));
        return list.items.flatMap((group) => (flags.latest ? group.slice(-1) : group));
      });
      printListed(
        sections,
        [
          { header: 'name', value: (w) => w.workflow_name },
          { header: 'version', value: (w) => w.workflow_version, right: true },
          { header: 'status', value: (w) => w.status },
          { header: 'modified', value: (w) => formatTime(w.modified_time) },
          { header: 'description', value: (w) => (w.description.length > 60 ? `${w.description.slice(0, 57)}...` : w.description) },
        ],
        'workflows',
        flags.json,
      );
    });
}
