import type { Command } from 'commander';
import { registerCwlExport } from './export.js';

/** `gdflow cwl ...`: CWL v1.2 documents in and out of gdflow (docs/cwl.md). */
export function registerCwl(program: Command): void {
  const cwl = program.command('cwl').description('CWL v1.2: export tools and workflows as CWL documents');
  registerCwlExport(cwl);
}
