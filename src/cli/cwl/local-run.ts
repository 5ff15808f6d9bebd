import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import {
  bindInputs,
  CwlValidationError,
  formatIssue,
  loadDocument,
  loadFormatOntology,
  loadJob,
  packDocument,
  type CwlIssue,
  type CwlProcess,
  type PackedDocument,
} from '../../domain/cwl/index.js';
import type { JsonMap } from '../../domain/cwl/expressions/index.js';
import { discoverSecondaryFiles, inputFileContext, ToolExpressions } from '../../domain/cwl/tool/index.js';
import { effectiveRequirements, findRequirement } from '../../domain/cwl/workflow/index.js';
import type { DocumentSource } from '../../domain/cwl/document/source.js';
import { documentUri, FileDocumentSource } from '../../engine/cwl/file-source.js';
import { LocalFileAccess } from '../../engine/cwl/local-files.js';
import { createJavaScriptSandbox } from '../../engine/js-sandbox/index.js';
import { checkLocalFiles } from './input-uploads.js';

/**
 * What `gdflow cwl run` and `gdflow cwl import` read on the client before anything goes to a server: the document
 * with every file it runs, imports and includes, checked and packed into one; for a run, the job object too, bound to
 * the process's inputs (types checked, defaults filled) with the secondary files its inputs declare found beside
 * their primaries, as cwltool fills them in when it loads a job. A document or job that is not valid CWL fails here,
 * with every problem and its file, line and column, before any upload.
 */
export interface LocalDocument {
  readonly process: CwlProcess;
  readonly packed: PackedDocument;
  /** Problems that do not stop the load (unknown hints, ...), as lines to print. */
  readonly warnings: readonly string[];
}

export interface LocalRun extends LocalDocument {
  /** The job's values bound to the inputs: Files and Directories at absolute (file:) locations. */
  readonly inputs: Record<string, unknown>;
  /** `cwl:requirements` as the job writes them, when it has some. */
  readonly requirements: unknown;
}

const source = new FileDocumentSource();

/** `DOC.cwl` or `DOC.cwl#id`, relative to `cwd`; `from`: where documents are read (the WES runner's notes which). */
export async function loadLocalDocument(document: string, cwd: string = process.cwd(), from: DocumentSource = source): Promise<LocalDocument> {
  const loaded = await loadDocument(documentUri(document, cwd), from);
  return { process: loaded.process, packed: packDocument(loaded), warnings: loaded.warnings.map(formatIssue) };
}

export interface JobOptions {
  /** Where relative locations of the job are (cwl-runner's --basedir); default: the job file's directory, or `cwd`. */
  readonly basedir?: string;
  readonly cwd?: string;
  /** Where the document, the job and their imports are read (default: the local file system). */
  readonly source?: DocumentSource;
}

/** The document and the job object (none: `{}`) of a run. */
export async function loadLocalRun(document: string, job: string | undefined, options: JobOptions = {}): Promise<LocalRun> {
  const cwd = options.cwd ?? globalThis.process.cwd();
  const from = options.source ?? source;
  const local = await loadLocalDocument(document, cwd, from);
  const { process } = local;
  const base = options.basedir === undefined ? undefined : `${pathToFileURL(resolve(cwd, options.basedir)).href.replace(/\/?$/, '/')}`;
  const read =
    job === undefined
      ? { values: {}, requirements: [], warnings: [] as CwlIssue[], requirementsAsWritten: undefined }
      : await loadJob(documentUri(job, cwd), from, { namespaces: process.namespaces, ...(base !== undefined ? { base } : {}) });
  const ontology = process.schemas.length > 0 ? await loadFormatOntology(process.schemas, from) : undefined;
  const inputs = structuredClone(bindInputs(process.inputs, read.values, ontology ? { ontology } : {})) as unknown as JsonMap;
  // What the job names must be there (or be a gdflow: item) before secondary files are looked for beside it.
  await checkLocalFiles(inputs, 'inputs');
  const effective = effectiveRequirements([], undefined, process, read.requirements);
  const javascript = findRequirement(effective, 'InlineJavascriptRequirement') !== undefined;
  const sandbox = javascript ? createJavaScriptSandbox() : undefined;
  try {
    const expressions = new ToolExpressions(process, effective, sandbox, inputs, {});
    await discoverSecondaryFiles(process.inputs, inputs, inputFileContext(process.cwlVersion, effective, expressions, { files: new LocalFilesOnly() }));
  } finally {
    await sandbox?.close();
  }
  return { ...local, warnings: [...local.warnings, ...read.warnings.map(formatIssue)], inputs, requirements: read.requirementsAsWritten };
}

/**
 * Local files, for secondary files looked for beside their primaries: beside an item of the data store (a gdflow:
 * location) nothing is looked for here (the server looks, when the run needs them); a job may list them itself.
 */
class LocalFilesOnly extends LocalFileAccess {
  override async stat(location: string) {
    return location.startsWith('file:') ? super.stat(location) : undefined;
  }
}

/** The features a document needs and gdflow does not support, when that is all that is wrong with it (exit 33). */
export function unsupportedFeatures(error: unknown): string[] {
  return error instanceof CwlValidationError ? error.unsupportedFeatures : [];
}
