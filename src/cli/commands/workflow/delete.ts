import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { versionOption } from '../../documents.js';
import { usageError } from '../../exit.js';
import { missingWorkflow } from '../../not-found.js';
import { say } from '../../output.js';

/** `gdflow workflow delete`: one version, or every version with --all. */
export function registerWorkflowDelete(workflow: Command): void {
  clientCommand(workflow.command('delete <name>').description('delete a workflow version (tasks already started keep running)'))
    .option('--version <n>', 'version to delete')
    .option('--all', 'delete every version')
    .action(async (name: string, flags: ClientFlags & { version?: string; all?: boolean }) => {
      const version = versionOption(flags.version);
      if ((version === undefined) === !flags.all) throw usageError('give either --version N or --all');
      const client = clientFor(flags);
      const all = async () => (await client.getWorkflow(name).catch(missingWorkflow(client, name))).workflows.map((w) => w.version);
      const versions = version !== undefined ? [version] : await all();
      for (const v of versions) {
        await client.deleteWorkflow(name, v).catch(missingWorkflow(client, name));
        say(`workflow ${name} version ${v} deleted`);
      }
    });
}
