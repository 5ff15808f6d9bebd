import { cwlDocument } from './document.js';
import { commandLineTool, type ToolSource } from './tool.js';
import { embeddedLibrary } from './library.js';
import { cwlWorkflow, type WorkflowSource } from './workflow.js';

/**
 * Export of gdflow tools and workflows as CWL v1.2 documents (docs/cwl.md, "Export"). Pure: the caller reads the
 * version (and, for a workflow, its graph and run template) from the store and hands it over.
 */

export type { ToolSource } from './tool.js';
export type { WorkflowSource } from './workflow.js';
export { formatName, formatTerm, formatUri, EDAM_NAMESPACE, GDFLOW_FORMAT_NAMESPACE } from './formats.js';
export { toolIds, type ToolIds } from './ids.js';

type JsonObject = Record<string, unknown>;

export interface ExportOptions {
  /** gdflow's version, which the document's doc names. */
  gdflowVersion: string;
}

/**
 * A version imported from CWL keeps the document it came from (normalized and packed when it was imported): its
 * export is that document, not a translation of the gdflow definition made from it, so that nothing CWL says and
 * gdflow's format cannot (expressions, secondary files, records) is lost on the way back.
 */
export interface ImportedSource {
  cwlDocument: JsonObject;
}

function importedDocument(document: JsonObject): JsonObject {
  return { cwlVersion: 'v1.2', ...document };
}

/** A tool version as a CommandLineTool document. */
export async function exportTool(source: ToolSource | ImportedSource, options: ExportOptions): Promise<JsonObject> {
  if ('cwlDocument' in source) return importedDocument(source.cwlDocument);
  return cwlDocument(commandLineTool(source, { gdflowVersion: options.gdflowVersion, library: await embeddedLibrary() }));
}

/** A workflow version as a Workflow document, its tools embedded in its steps. */
export async function exportWorkflow(source: WorkflowSource | ImportedSource, options: ExportOptions): Promise<JsonObject> {
  if ('cwlDocument' in source) return importedDocument(source.cwlDocument);
  return cwlDocument(cwlWorkflow(source, { gdflowVersion: options.gdflowVersion, library: await embeddedLibrary() }));
}
