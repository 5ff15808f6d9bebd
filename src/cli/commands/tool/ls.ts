import type { Command } from 'commander';
import { notFoundAs } from '../../../client/client.js';
import type { ToolSummary } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { formatTime, printJson, printTable } from '../../output.js';

/** `gdflow tool ls`: every version of every tool of the project. */
export function registerToolLs(tool: Command): void {
  clientCommand(tool.command('ls').description('list the tools of the project, one line per version'), { json: true })
    .option('--latest', 'only the latest version of each tool')
    .action(async (flags: ClientFlags & { latest?: boolean }) => {
      // ListTool answers 404 ToolNotExists for a project without tools: that is an empty list.
      const list = await clientFor(flags).listTools().catch(notFoundAs({ items: [], tool_url: '' }));
      const rows: ToolSummary[] = list.items.flatMap((group) => (flags.latest ? group.slice(-1) : group));
      if (flags.json) return printJson(rows);
      printTable(
        rows,
        [
          { header: 'name', value: (t) => t.tool_name },
          { header: 'version', value: (t) => t.tool_version, right: true },
          { header: 'status', value: (t) => t.status },
          { header: 'category', value: (t) => t.category },
          { header: 'modified', value: (t) => formatTime(t.modified_time) },
          { header: 'description', value: (t) => (t.description.length > 60 ? `${t.description.slice(0, 57)}...` : t.description) },
        ],
        'no tools in this project',
      );
    });
}
