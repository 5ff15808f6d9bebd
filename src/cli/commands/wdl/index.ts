import type { Command } from 'commander';
import { WdlError } from '../../../domain/wdl/errors.js';
import { CliError, EXIT } from '../../exit.js';
import { readLocalWdl } from '../../wdl/local-documents.js';
import { registerWdlRun } from './run.js';

/** `gdflow wdl ...`: WDL 1.0 and 1.1 documents run on gdflow (docs/wdl.md). */
export function registerWdl(program: Command): void {
  const wdl = program.command('wdl').description('WDL 1.0/1.1: run a WDL workflow or task, check a document');
  registerWdlRun(wdl);
  wdl
    .command('check <document>')
    .description('parse and type-check a WDL document with the files it imports; an error names the file, line and column')
    .action(async (document: string) => {
      try {
        const { bundle } = await readLocalWdl(document);
        process.stdout.write(
          `${document}: WDL ${bundle.version}, ${bundle.workflowName ? `workflow ${bundle.workflowName}` : 'no workflow'}, tasks: ${bundle.taskNames.join(', ') || 'none'}\n`,
        );
      } catch (error) {
        if (error instanceof WdlError) throw new CliError(error.message, EXIT.failed);
        throw error;
      }
    });
}
