import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { editableTool, versionOption } from '../../documents.js';
import { printJson, printYaml } from '../../output.js';

/** `gdflow tool get`: a version's definition as an editable `app:` document. */
export function registerToolGet(tool: Command): void {
  clientCommand(tool.command('get <name>').description('print a tool definition as an app: YAML document (the latest version unless --version)'), { json: 'print the version as JSON, as GetTool answers it, instead of an app: YAML document' })
    .option('--version <n>', 'tool version')
    .action(async (name: string, flags: ClientFlags & { version?: string }) => {
      const version = versionOption(flags.version);
      const { tools } = await clientFor(flags).getTool(name, version);
      const latest = tools.reduce((a, b) => (b.configs.version > a.configs.version ? b : a));
      if (flags.json) return printJson(latest);
      printYaml({ app: editableTool(latest.configs) });
    });
}
