import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { readDocument, runDocument, versionOption } from '../../documents.js';
import { missingWorkflow } from '../../not-found.js';
import { say } from '../../output.js';

/** `gdflow workflow setparam`: save defaults that later templates (and runs) start from. */
export function registerWorkflowSetparam(workflow: Command): void {
  clientCommand(
    workflow.command('setparam <name>').description('save run parameters as the defaults of a workflow version (later getparam and run start from them)'),
  )
    .requiredOption('-p, --params <file>', 'run parameters (YAML or JSON, as getparam prints them; - for stdin)')
    .option('--version <n>', 'workflow version (default: the latest runnable one)')
    .action(async (name: string, flags: ClientFlags & { params: string; version?: string }) => {
      const doc = runDocument(readDocument(flags.params), flags.params);
      const client = clientFor(flags);
      const latest = async () => (await client.getWorkflowGraph(name).catch(missingWorkflow(client, name))).workflow_version;
      const version = versionOption(flags.version) ?? doc.workflow_version ?? (await latest());
      await client.setRunTemplate(name, version, doc.parameters).catch(missingWorkflow(client, name));
      say(`run parameters of workflow ${name} version ${version} saved`);
    });
}
