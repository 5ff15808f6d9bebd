import type { Command } from 'commander';
import { basename } from 'node:path';
import { nameFor } from '../../../domain/cwl/imports/names.js';
import { InputUploads } from '../../cwl/input-uploads.js';
import { loadLocalDocument, unsupportedFeatures } from '../../cwl/local-run.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { unsupportedFeature } from '../../exit.js';
import { note, printJson, say } from '../../output.js';

/** `gdflow cwl import DOC.cwl[#id]`: CWL processes as gdflow tool and workflow versions (docs/cwl.md, "Import"). */

const HELP = `
The document is read and checked here and packed into one (run: files inlined, $import, $include and
SchemaDefRequirement imports expanded; its default Files uploaded to the data store), then imported: the process
(DOC.cwl's main process, or DOC.cwl#id) and every process of the document it runs become versions, each
CommandLineTool and ExpressionTool a tool version, each Workflow a workflow version. Each version keeps its CWL
document: gdflow cwl export gives it back, and that is what runs. GeneDock's clients, the console and GetTool/
GetWorkflow see a view of it: File and Directory inputs and outputs as the tool's inputs and outputs, the other
inputs as parameters; a workflow's File inputs as loaddata nodes, its steps as nodes, its File outputs as storedata
nodes. ActivateWorkflow of an imported workflow runs it as a CWL run, with the run template's inputs (data items)
and parameters as the job. A name whose latest version holds the same document is not imported again.

The process is named --name, else after the file (revsort.cwl: revsort) or the id (#main_tool: main_tool); the
processes it runs after their ids or files.

Examples:
  gdflow cwl import revsort.cwl                     # workflow revsort, tools revtool and sorttool
  gdflow cwl import tools.cwl#bwa_mem --name bwa_mem_cwl
  gdflow cwl export workflow revsort                # the document as imported`;

export function registerCwlImport(cwl: Command): void {
  clientCommand(
    cwl.command('import <document>').description('import a CWL document (DOC.cwl or DOC.cwl#id) as tool and workflow versions, keeping the document'),
    {
      json: 'print what was imported as JSON',
    },
  )
    .option('--name <name>', "the name of the process's tool or workflow (default: from the file name or the id)")
    .addHelpText('after', HELP)
    .action(async (document: string, flags: ClientFlags & { name?: string }) => {
      try {
        await importCwl(document, flags);
      } catch (error) {
        const features = unsupportedFeatures(error);
        throw features.length > 0 ? unsupportedFeature(features, (error as Error).message) : error;
      }
    });
}

async function importCwl(document: string, flags: ClientFlags & { name?: string }): Promise<void> {
  const local = await loadLocalDocument(document);
  for (const warning of local.warnings) note(`warning: ${warning}`);
  const client = clientFor(flags);
  const uploads = new InputUploads(client);
  const packed = await uploads.rewriteDocument(local.packed.document);
  await uploads.upload();
  const hash = document.indexOf('#');
  const name = flags.name ?? nameFor(hash < 0 ? basename(document) : document.slice(hash + 1));
  const result = await client.importCwl({ document: packed, process: local.packed.process, name });
  if (flags.json) return printJson(result);
  for (const item of result.imported) {
    say(`${item.kind} ${item.name} version ${item.version} (${item.process})${item.created ? '' : ': unchanged, as before'}`);
  }
}
