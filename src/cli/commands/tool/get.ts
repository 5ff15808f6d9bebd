import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { editableTool, versionOption } from '../../documents.js';
import { missingTool } from '../../not-found.js';
import { printJson, printYaml } from '../../output.js';
import { ownerClient, withOwner } from '../../owner.js';

/** `gdflow tool get`: a version's definition as an editable `app:` document. */
export function registerToolGet(tool: Command): void {
  const description = 'print a tool definition as an app: YAML document (the latest version unless --version)';
  const command = clientCommand(tool.command('get <name>').description(description), {
    json: 'print the version as JSON, as GetTool answers it, instead of an app: YAML document',
  }).option('--version <n>', 'tool version');
  withOwner(command, 'read a tool').action(async (name: string, flags: ClientFlags & { version?: string; owner?: string }) => {
    const version = versionOption(flags.version);
    const source = await ownerClient(clientFor(flags), flags.owner);
    const { tools } = await source.getTool(name, version).catch(missingTool(source, name));
    const latest = tools.reduce((a, b) => (b.configs.version > a.configs.version ? b : a));
    if (flags.json) return printJson(latest);
    printYaml({ app: editableTool(latest.configs) });
  });
}
