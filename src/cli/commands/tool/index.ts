import type { Command } from 'commander';
import { registerToolCreate, registerToolUpdate } from './create.js';
import { registerToolDelete } from './delete.js';
import { registerToolGet } from './get.js';
import { registerToolLs } from './ls.js';

/** `gdflow tool ...`: tool definitions (INTERFACE.md 4.1–4.7). */
export function registerTool(program: Command): void {
  const tool = program
    .command('tool')
    .description('manage tools: versioned definitions of containerised programs (documents in the app: form)')
    .addHelpText(
      'after',
      `
A tool document is YAML or JSON with the definition under 'app:' (see 'gdflow tool get NAME'):
  app:
    name: fastqc
    cmd_template: 'fastqc -o /var/data/out {% for f in inputs.reads %}{{ f.path }} {% endfor %}'
    inputs:  {reads: {type: file, formats: [fastq, fq], minitems: 1, maxitems: 10, required: true}}
    outputs: {report: {type: file, formats: tgz, required: true}}
    parameters: {}
    requirements: {container: {image: 'debian:bookworm', type: docker}, resources: {cpu: 1, mem: 1024m, disk: 1024m}}

Every create or update adds a version (1, 2, ...); workflows pin the version they use.`,
    );
  registerToolLs(tool);
  registerToolGet(tool);
  registerToolCreate(tool);
  registerToolUpdate(tool);
  registerToolDelete(tool);
}
