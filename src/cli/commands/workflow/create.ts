import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { fillAccount, readDocument, usesAccountPlaceholder, versionOption, workflowDocument } from '../../documents.js';
import { usageError } from '../../exit.js';
import { printJson, say } from '../../output.js';

interface Flags extends ClientFlags {
  file: string;
  name?: string;
  description?: string;
  version?: string;
}

async function registerFromFile(flags: Flags, verb: 'created' | 'updated'): Promise<void> {
  const doc = workflowDocument(readDocument(flags.file), flags.file);
  const name = flags.name ?? doc.name;
  if (!name) throw usageError(`${flags.file}: the workflow has no 'name'; give one with --name`);
  const description = flags.description ?? doc.description;
  const version = versionOption(flags.version);
  const client = clientFor(flags);
  const configs = usesAccountPlaceholder(doc.configs) ? fillAccount(doc.configs, await client.accountName()) : doc.configs;
  let result: { workflow_name: string; workflow_version: number };
  if (version !== undefined) {
    await client.putWorkflow(name, { workflow_version: version, configs, ...(description !== undefined ? { description } : {}) });
    result = { workflow_name: name, workflow_version: version };
  } else {
    result = await client.registerWorkflow(name, configs, description !== undefined ? { description } : {});
  }
  if (flags.json) return printJson(result);
  say(`workflow ${result.workflow_name} version ${result.workflow_version} ${verb}`);
}

const withFileOptions = (command: Command): Command =>
  command
    .requiredOption(
      '-f, --file <file>',
      "workflow document (YAML or JSON, the 'workflow:' form; - for stdin); '{account}' in an app_id stands for the account addressed",
    )
    .option('--name <name>', "workflow name (default: the document's name)")
    .option('--description <text>', "description (default: the document's)")
    .option('--json', 'print the name and version as JSON');

/** `gdflow workflow create -f wf.yml`. */
export function registerWorkflowCreate(workflow: Command): void {
  withFileOptions(
    clientCommand(workflow.command('create').description('create a workflow from a document: adds version 1 (or the next version if the name exists)')),
  ).action((flags: Flags) => registerFromFile(flags, 'created'));
}

/** `gdflow workflow update -f wf.yml`: a new version, or with --version a replaced graph. */
export function registerWorkflowUpdate(workflow: Command): void {
  withFileOptions(
    clientCommand(workflow.command('update').description('update a workflow from a document: adds a new version, or with --version N replaces that version')),
  )
    .option('--version <n>', 'replace this version instead of adding one')
    .action((flags: Flags) => registerFromFile(flags, 'updated'));
}
