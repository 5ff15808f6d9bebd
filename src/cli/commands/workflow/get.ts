import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { versionOption } from '../../documents.js';
import { missingWorkflow } from '../../not-found.js';
import { printJson, printYaml } from '../../output.js';
import { ownerClient, withOwner } from '../../owner.js';

/** `gdflow workflow get`: a version as an editable `workflow:` document. */
export function registerWorkflowGet(workflow: Command): void {
  const description = 'print a workflow as a workflow: YAML document (the latest version unless --version)';
  const command = clientCommand(workflow.command('get <name>').description(description), {
    json: 'print the version as JSON, as GetWorkflow answers it, instead of a workflow: YAML document',
  }).option('--version <n>', 'workflow version');
  withOwner(command, 'read a workflow').action(async (name: string, flags: ClientFlags & { version?: string; owner?: string }) => {
    const version = versionOption(flags.version);
    const source = await ownerClient(clientFor(flags), flags.owner);
    const { workflows } = await source.getWorkflow(name, version).catch(missingWorkflow(source, name));
    const latest = workflows.reduce((a, b) => (b.version > a.version ? b : a));
    if (flags.json) return printJson(latest);
    printYaml({ workflow: { name, description: latest.description, version: latest.version, status: latest.status, ...latest.configs } });
  });
}
