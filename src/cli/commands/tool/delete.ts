import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { versionOption } from '../../documents.js';
import { usageError } from '../../exit.js';
import { missingTool } from '../../not-found.js';
import { say } from '../../output.js';

/** `gdflow tool delete`: one version, or all versions with --all. */
export function registerToolDelete(tool: Command): void {
  clientCommand(tool.command('delete <name>').description('delete a tool version (refused while a workflow uses it)'))
    .option('--version <n>', 'version to delete')
    .option('--all', 'delete every version')
    .action(async (name: string, flags: ClientFlags & { version?: string; all?: boolean }) => {
      const version = versionOption(flags.version);
      if ((version === undefined) === !flags.all) throw usageError('give either --version N or --all');
      const client = clientFor(flags);
      const versions = version !== undefined ? [version] : (await client.getTool(name).catch(missingTool(client, name))).tools.map((t) => t.configs.version);
      for (const v of versions) {
        await client.deleteTool(name, v).catch(missingTool(client, name));
        say(`tool ${name} version ${v} deleted`);
      }
    });
}
