import type { Command } from 'commander';
import { notFoundAs } from '../../../client/client.js';
import type { ToolSummary } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { listEach, listedProjects, printListed, withListOwner, type ListFlags } from '../../owned-lists.js';
import { formatTime } from '../../output.js';

/** `gdflow tool ls`: every version of every tool of the project, then the public account's. */
export function registerToolLs(tool: Command): void {
  const description = "list the tools of the project, one line per version, then the public account's (which every account can use)";
  const command = clientCommand(tool.command('ls').description(description), { json: "print JSON: every row, each with 'owner' (ACCOUNT/PROJECT)" });
  withListOwner(command, 'tools')
    .option('--latest', 'only the latest version of each tool')
    .action(async (flags: ClientFlags & ListFlags & { latest?: boolean }) => {
      const listed = await listedProjects(clientFor(flags), flags);
      // ListTool answers 404 ToolNotExists for a project without tools: that is an empty list.
      const sections = await listEach(listed, async (client) =>
        (await client.listTools().catch(notFoundAs({ items: [], tool_url: '' }))).items.flatMap((group): ToolSummary[] =>
          flags.latest ? group.slice(-1) : group,
        ),
      );
      printListed(
        sections,
        [
          { header: 'name', value: (t) => t.tool_name },
          { header: 'version', value: (t) => t.tool_version, right: true },
          { header: 'status', value: (t) => t.status },
          { header: 'category', value: (t) => t.category },
          { header: 'modified', value: (t) => formatTime(t.modified_time) },
          { header: 'description', value: (t) => (t.description.length > 60 ? `${t.description.slice(0, 57)}...` : t.description) },
        ],
        'tools',
        flags.json,
      );
    });
}
