import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { stringify as stringifyYaml } from 'yaml';
import type { CwlDocument } from '../../../client/types.js';
import { stringifyExactJson } from '../../../contract/exact-json.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { versionOption } from '../../documents.js';
import { usageError } from '../../exit.js';
import { missingTool, missingWorkflow } from '../../not-found.js';
import { note } from '../../output.js';
import { ownerClient, withOwner } from '../../owner.js';

/** `gdflow cwl export tool|workflow NAME[:VERSION]`: a version as a CWL v1.2 document (docs/cwl.md, "Export"). */

/** `bwa_mem` or `bwa_mem:3`. */
function nameAndVersion(value: string): { name: string; version: number | undefined } {
  const colon = value.lastIndexOf(':');
  if (colon < 0) return { name: value, version: undefined };
  return { name: value.slice(0, colon), version: versionOption(value.slice(colon + 1), `the version in '${value}'`) };
}

/** The document as a CWL file: YAML after cwl-runner's #! line (a file one can run), or JSON. */
function documentText(document: CwlDocument, json: boolean): string {
  // An integer beyond 2^53 in the document arrives as a bigint (the client reads answers exactly): written as its digits.
  if (json) return `${stringifyExactJson(document, 2)}\n`;
  return `#!/usr/bin/env cwl-runner\n${stringifyYaml(document, { lineWidth: 0 })}`;
}

const HELP = `
The document runs in any CWL v1.2 runner (cwltool, Toil, Arvados, ...): the command is the tool's own cmd_template,
rendered when the runner binds the inputs by gdflow's renderer, which the document embeds (InlineJavascriptRequirement),
so it is quoted for the shell exactly as gdflow quotes it. Files are staged where gdflow's job has them
(inputs/<input>/<name>, outputs/<output>/<name>, in the runner's output directory instead of /var/data); the image is
a DockerRequirement hint; formats are EDAM terms where there is one (edam:format_1930 for fastq), else gdflow's
(gdflow:tgz). A workflow's loaddata nodes are its File inputs, its storedata nodes its outputs; its variable
parameters are inputs named <node>.<parameter>, and <store node>.name names a stored file. See docs/cwl.md, "Export".

Examples:
  gdflow cwl export tool bwa_mem > bwa_mem.cwl && cwltool --validate bwa_mem.cwl
  gdflow cwl export workflow align_paired:2 -o align_paired.cwl
  cwltool --no-container align_paired.cwl job.yml`;

export function registerCwlExport(cwl: Command): void {
  const description = 'print a tool or workflow version as a CWL v1.2 document (YAML; the latest runnable version unless NAME:VERSION)';
  const command = clientCommand(cwl.command('export <kind> <name>').description(description), {
    json: 'print the document as JSON instead of YAML',
  })
    .option('-o, --output <file>', 'write the document to this file instead of printing it')
    .addHelpText('after', HELP);
  withOwner(command, 'export a tool or workflow').action(async (kind: string, given: string, flags: ClientFlags & { output?: string; owner?: string }) => {
    if (kind !== 'tool' && kind !== 'workflow') throw usageError(`what to export is 'tool' or 'workflow', not '${kind}'`);
    const { name, version } = nameAndVersion(given);
    const source = await ownerClient(clientFor(flags), flags.owner);
    const document =
      kind === 'tool'
        ? await source.exportToolCwl(name, version).catch(missingTool(source, name))
        : await source.exportWorkflowCwl(name, version).catch(missingWorkflow(source, name));
    const text = documentText(document, flags.json === true);
    if (flags.output === undefined) return void process.stdout.write(text);
    writeFileSync(flags.output, text);
    note(`wrote ${kind} ${given} as CWL to ${flags.output}`);
  });
}
