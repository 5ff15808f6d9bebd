import { containsExpression, type Json, type JsonMap } from '../expressions/index.js';
import { LOAD_CONTENTS_LIMIT } from '../contents.js';
import type { CwlVersion, InputParameter, LoadListing } from '../model.js';
import { checkFormats, type FormatOntology } from '../types/format.js';
import { nameParts } from '../types/files.js';
import type { CwlIssue } from '../errors.js';
import { pathToReference } from '../uri.js';
import { ToolRunError } from './errors.js';
import { brief, type ToolExpressions } from './expressions.js';
import type { FileAccess } from './file-access.js';
import { findRequirement, type EffectiveRequirements } from '../workflow/requirements.js';
import {
  asList,
  basenameOf,
  fileObjects,
  isFileObject,
  lastSegment,
  secondaryName,
  textField,
  visitTypedFiles,
  type FileObject,
  type FileSettings,
} from './values.js';

/** The context of a run's inputs, from the requirements in force and the run's options. */
export function inputFileContext(
  cwlVersion: CwlVersion,
  effective: EffectiveRequirements,
  expressions: ToolExpressions,
  options: { readonly files: FileAccess; readonly discoverSecondaryFiles?: boolean; readonly ontology?: FormatOntology },
): InputFileContext {
  return {
    cwlVersion,
    files: options.files,
    expressions,
    loadListing: findRequirement(effective, 'LoadListingRequirement')?.requirement.loadListing ?? 'no_listing',
    discoverSecondaryFiles: options.discoverSecondaryFiles ?? true,
    ...(options.ontology ? { ontology: options.ontology } : {}),
  };
}

export interface InputFileContext {
  readonly files: FileAccess;
  readonly expressions: ToolExpressions;
  /** LoadListingRequirement's value in force, for Directories whose input says nothing. */
  readonly loadListing: LoadListing;
  readonly discoverSecondaryFiles: boolean;
  readonly ontology?: FormatOntology;
  /** The document's version: loadContents of a file over 64 KiB is an error from v1.2 on, a cut before. */
  readonly cwlVersion: CwlVersion;
}

/**
 * Completes the input Files and Directories as a run needs them, through the injected FileAccess: every location
 * must exist and be of its class (Files get their size); Directories get their listing (loadListing of the input,
 * else LoadListingRequirement: shallow or deep); Files their secondaryFiles (declared by the input; looked for
 * beside the primary when `discoverSecondaryFiles`, a required one missing is an error) and their `contents`
 * (loadContents); Files are checked against formats given as expressions (literal formats were checked when the
 * inputs were bound).
 */
export async function completeInputFiles(inputs: readonly InputParameter[], values: JsonMap, context: InputFileContext): Promise<void> {
  for (const input of inputs) {
    await visitTypedFiles(input.type, values[input.name], input, `inputs.${input.name}`, (file, settings, path) => completeFile(file, settings, path, context));
    if (input.format?.some((f) => containsExpression(f)) && values[input.name] !== undefined) {
      await checkExpressionFormats(input, values[input.name]!, context);
    }
  }
}

/**
 * Only the secondary files the inputs declare, found beside their primaries: what a client does with a job before it
 * sends its files elsewhere (cwltool fills them in when it loads a job), so that they travel with their primaries.
 */
export async function discoverSecondaryFiles(inputs: readonly InputParameter[], values: JsonMap, context: InputFileContext): Promise<void> {
  for (const input of inputs) {
    await visitTypedFiles(input.type, values[input.name], input, `inputs.${input.name}`, async (file, settings, path) => {
      if (file.class === 'File' && settings.secondaryFiles.length > 0) await secondaryFiles(file, settings, path, context);
    });
  }
}

async function completeFile(file: FileObject, settings: FileSettings, path: string, context: InputFileContext): Promise<void> {
  await checkExists(file, path, context.files);
  if (file.class === 'Directory') {
    const listing = settings.loadListing ?? context.loadListing;
    if (listing !== 'no_listing') await loadListing(file, listing === 'deep_listing', context.files);
  } else {
    if (settings.secondaryFiles.length > 0) await secondaryFiles(file, settings, path, context);
    if (settings.loadContents && file.contents === undefined) file.contents = await readContents(file, path, context);
  }
  // What a job object lists itself (secondary files, a literal Directory's entries) must exist too, and has a size.
  for (const inner of fileObjects(file, true)) if (inner !== file) await checkExists(inner, `${path}: ${basenameOf(inner)}`, context.files);
}

async function checkExists(file: FileObject, path: string, files: FileAccess): Promise<void> {
  const location = file.location;
  // A File whose size is known was listed here or described by its producer: cwltool does not look again either.
  if (typeof location !== 'string' || location.startsWith('_:') || (file.class === 'File' && typeof file.size === 'number')) return;
  const stat = await files.stat(location);
  if (stat === undefined) throw new ToolRunError(`${path}: ${location} does not exist`);
  if (stat.class !== file.class) throw new ToolRunError(`${path}: ${location} is a ${stat.class}, not a ${String(file.class)}`);
  if (stat.class === 'File' && file.size === undefined) file.size = stat.size;
}

/** The first 64 KiB of a File as UTF-8 text (see contentsText). */
export async function readContents(file: FileObject, path: string, context: InputFileContext): Promise<string> {
  if (typeof file.location !== 'string') throw new ToolRunError(`${path}: loadContents needs a File with a location`);
  const bytes = await context.files.readPrefix(file.location, LOAD_CONTENTS_LIMIT + 1);
  return contentsText(bytes, `${path}: ${file.location}`, context.cwlVersion);
}

/**
 * What loadContents gives from the first LOAD_CONTENTS_LIMIT + 1 bytes of a file (`what` names it in errors): its
 * text, which must be UTF-8; a larger file is an error under CWL v1.2, and cut to 64 KiB before (as src/domain/cwl/
 * contents.ts rules for the workflow layer).
 */
export function contentsText(bytes: Uint8Array, what: string, cwlVersion: CwlVersion): string {
  const whole = bytes.length <= LOAD_CONTENTS_LIMIT;
  if (!whole && cwlVersion === 'v1.2') throw new ToolRunError(`${what} is larger than the ${LOAD_CONTENTS_LIMIT} bytes loadContents may read`);
  try {
    // A file cut at 64 KiB may end inside a character: only a whole file must be valid UTF-8 to the last byte.
    return new TextDecoder('utf-8', { fatal: whole }).decode(whole ? bytes : bytes.subarray(0, LOAD_CONTENTS_LIMIT));
  } catch {
    throw new ToolRunError(`${what} is not UTF-8 text, which loadContents needs`);
  }
}

/** A Directory's `listing` (entries with location, basename and, for Files, size); `deep` lists subdirectories too. */
export async function loadListing(directory: FileObject, deep: boolean, files: FileAccess): Promise<void> {
  if (directory.listing !== undefined || typeof directory.location !== 'string') return;
  const base = directory.location.replace(/\/+$/, '');
  const listing: JsonMap[] = [];
  for (const entry of await files.list(base)) {
    const child: FileObject = { class: entry.class, location: `${base}/${pathToReference(entry.basename)}`, basename: entry.basename };
    if (entry.class === 'File') Object.assign(child, nameParts(entry.basename), { size: entry.size });
    else if (deep) await loadListing(child, true, files);
    listing.push(child);
  }
  directory.listing = listing;
}

async function secondaryFiles(file: FileObject, settings: FileSettings, path: string, context: InputFileContext): Promise<void> {
  if (Array.isArray(file.secondaryFiles) && !context.discoverSecondaryFiles) return;
  const present: Json[] = Array.isArray(file.secondaryFiles) ? file.secondaryFiles : [];
  file.secondaryFiles = present;
  for (const spec of settings.secondaryFiles) {
    const required = typeof spec.required === 'boolean' ? spec.required : await context.expressions.evaluate(spec.required, file);
    if (typeof required !== 'boolean' && required !== null) {
      throw new ToolRunError(`${path}: secondaryFiles 'required' must give true or false, but ${JSON.stringify(spec.required)} gave ${brief(required)}`);
    }
    const names = containsExpression(spec.pattern) ? await context.expressions.evaluate(spec.pattern, file) : secondaryName(basenameOf(file), spec.pattern);
    for (const name of asList(names)) {
      if (name === '' || name === false) continue;
      const found = await secondaryFile(file, name, path, spec.pattern, context);
      if (present.some((s) => isFileObject(s) && s.basename === found.basename)) continue;
      if (found.object !== undefined) present.push(found.object);
      else if (required === true) {
        const primary = textField(file, 'location') ?? basenameOf(file);
        throw new ToolRunError(`${path}: the required secondary file ${found.basename} (${spec.pattern}) of ${primary} is missing`);
      }
    }
  }
}

/** One secondary file a pattern names: an object the expression gave, or one found beside the primary (or not). */
async function secondaryFile(
  primary: FileObject,
  name: Json,
  path: string,
  pattern: string,
  context: InputFileContext,
): Promise<{ basename: string; object?: FileObject }> {
  if (isFileObject(name)) return { basename: basenameOf(name), object: name };
  if (typeof name !== 'string') {
    throw new ToolRunError(`${path}: secondaryFiles ${JSON.stringify(pattern)} must give names, Files or Directories, not ${brief(name)}`);
  }
  const basename = lastSegment(name);
  const beside = typeof primary.location === 'string' ? primary.location.slice(0, primary.location.lastIndexOf('/') + 1) : undefined;
  const location = beside === undefined ? undefined : `${beside}${pathToReference(name)}`;
  if (location === undefined || !context.discoverSecondaryFiles) return { basename };
  const stat = await context.files.stat(location);
  if (stat === undefined) return { basename };
  const object: FileObject = { class: stat.class, location, basename };
  if (stat.class === 'File') Object.assign(object, nameParts(basename), { size: stat.size });
  return { basename, object };
}

/** An input whose `format` holds expressions: they give a format or a list of them, which its Files must match. */
async function checkExpressionFormats(input: InputParameter, value: Json, context: InputFileContext): Promise<void> {
  const formats: string[] = [];
  for (const format of input.format ?? []) {
    const result = await context.expressions.evaluate(format);
    for (const item of asList(result)) {
      if (typeof item !== 'string') throw new ToolRunError(`inputs.${input.name}: format ${JSON.stringify(format)} must give strings, not ${brief(item)}`);
      formats.push(item);
    }
  }
  const issues: CwlIssue[] = [];
  const place = { path: `inputs.${input.name}`, at: undefined };
  checkFormats(value, formats, place, context.ontology ? { issues, ontology: context.ontology } : { issues });
  if (issues.length > 0) throw new ToolRunError(issues.map((i) => i.message).join('\n'));
}
