import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { originComment } from '../../batch/origin.js';
import { versionOption } from '../../documents.js';
import { missingWorkflow } from '../../not-found.js';
import { note, printJson, printYaml } from '../../output.js';
import { ownerClient, withOwner } from '../../owner.js';

/** `gdflow workflow getparam`: the run-parameter template to fill in for `workflow run` or `batch`. */
export function registerWorkflowGetparam(workflow: Command): void {
  const description = 'print the run-parameter template of a workflow (YAML) to fill in for "workflow run -p" or "batch"';
  const command = clientCommand(workflow.command('getparam <name>').description(description), {
    json: 'print the template as JSON instead of YAML',
  })
    .option('--version <n>', 'workflow version (default: the latest runnable one)')
    .option(
      '-o, --output <file>',
      "write the template to a file instead of stdout (YAML: its first line, a comment, names the workflow and its owner for 'batch' and 'workflow run -p')",
    );
  withOwner(command, 'the template of a workflow').action(async (name: string, flags: ClientFlags & { version?: string; output?: string; owner?: string }) => {
    const version = versionOption(flags.version);
    const source = await ownerClient(clientFor(flags), flags.owner);
    const { parameter } = await source.getExecutableWorkflow(name, version).catch(missingWorkflow(source, name));
    if (flags.output) {
      // A YAML file starts with a comment naming the workflow, for 'gdflow batch' (JSON has no comments).
      const yaml = () => originComment(name, version, flags.owner) + stringifyYaml(parameter, { lineWidth: 0 });
      const text = flags.json ? `${JSON.stringify(parameter, null, 2)}\n` : yaml();
      writeFileSync(flags.output, text);
      return note(`template written to ${flags.output}`);
    }
    if (flags.json) return printJson(parameter);
    printYaml(parameter);
  });
}
