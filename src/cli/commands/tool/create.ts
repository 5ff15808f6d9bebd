import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { readDocument, toolDocument, versionOption } from '../../documents.js';
import { printJson, say } from '../../output.js';

interface Flags extends ClientFlags {
  file: string;
  name?: string;
  description?: string;
  version?: string;
}

async function registerFromFile(flags: Flags, verb: 'created' | 'updated'): Promise<void> {
  const doc = toolDocument(readDocument(flags.file), flags.file);
  const name = flags.name ?? doc.name;
  const description = flags.description ?? doc.description;
  const version = versionOption(flags.version);
  const client = clientFor(flags);
  let result: { tool_name: string; tool_version: number };
  if (version !== undefined) {
    // Replace the definition of an existing version in place.
    await client.putTool(name, { tool_version: version, configs: { ...doc.definition, name }, ...(description !== undefined ? { description } : {}) });
    result = { tool_name: name, tool_version: version };
  } else {
    result = await client.registerTool(doc.definition, { name, ...(description !== undefined ? { description } : {}) });
  }
  if (flags.json) return printJson(result);
  say(`tool ${result.tool_name} version ${result.tool_version} ${verb}`);
}

const withFileOptions = (command: Command): Command =>
  command
    .requiredOption('-f, --file <file>', "tool document (YAML or JSON, the 'app:' form; - for stdin)")
    .option('--name <name>', "tool name (default: the document's name)")
    .option('--description <text>', "description (default: the document's)")
    .option('--json', 'print the name and version as JSON');

/** `gdflow tool create -f tool.yml`: a new tool (its version 1, or the next one). */
export function registerToolCreate(tool: Command): void {
  withFileOptions(
    clientCommand(tool.command('create').description('create a tool from a document: adds version 1 (or the next version if the name exists)')),
  ).action((flags: Flags) => registerFromFile(flags, 'created'));
}

/** `gdflow tool update -f tool.yml`: a new version, or with --version a replaced definition. */
export function registerToolUpdate(tool: Command): void {
  withFileOptions(
    clientCommand(
      tool
        .command('update')
        .description('update a tool from a document: adds a new version, or with --version N replaces that version (refused while a workflow pins it)'),
    ),
  )
    .option('--version <n>', 'replace this version instead of adding one')
    .action((flags: Flags) => registerFromFile(flags, 'updated'));
}
