import type { Command } from 'commander';
import { registerCwlExport } from './export.js';
import { registerCwlImport } from './import.js';
import { registerCwlRun } from './run.js';

/** `gdflow cwl ...`: CWL v1.2 documents in and out of gdflow (docs/cwl.md). */
export function registerCwl(program: Command): void {
  const cwl = program
    .command('cwl')
    .description('CWL v1.2: run CWL documents (a cwl-runner), import them as tools and workflows, export tools and workflows as CWL');
  registerCwlRun(cwl);
  registerCwlImport(cwl);
  registerCwlExport(cwl);
}
