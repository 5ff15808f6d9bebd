import { containsExpression, interpolationText, type Json } from '../expressions/index.js';
import type { CwlVersion, InitialWorkDirEntry, InitialWorkDirRequirement } from '../model.js';
import { ToolRunError } from './errors.js';
import { brief, type ToolExpressions } from './expressions.js';
import type { Staging } from './staging.js';
import { basenameOf, isFileObject, lastSegment, type FileObject } from './values.js';

export interface WorkDirContext {
  readonly expressions: ToolExpressions;
  readonly staging: Staging;
  readonly outdir: string;
  readonly cwlVersion: CwlVersion;
  /** Why absolute entrynames cannot be used in this run, or undefined when they can (a container run that requires DockerRequirement). */
  readonly absoluteRefused?: string;
}

/** One entry, evaluated: the File or Directory to put in the work directory, under which name (relative to the outdir, or absolute). */
interface Entry {
  readonly object: FileObject;
  readonly name: string;
  readonly writable: boolean;
}

/**
 * InitialWorkDirRequirement (CWL v1.2 rules, with the older versions' restrictions as cwltool keeps them): every
 * entry is evaluated (Dirents, literal Files and Directories, expressions giving Files, Directories, Dirent-like
 * objects or lists of them) and its File or Directory placed in the outdir; inputs placed there are moved there
 * (their `path` in the input object follows). A Dirent whose `entry` is text becomes a file of that text; any
 * other value (a number, an object, a list that is not all Files) is written as JSON (v1.2). Names are normalized;
 * one leaving the outdir (`../x`) is refused, an absolute one too unless the run is in a container that
 * DockerRequirement requires.
 */
export async function stageInitialWorkDir(requirement: InitialWorkDirRequirement, context: WorkDirContext): Promise<void> {
  // `in` rather than Array.isArray, which narrows a readonly list to any[].
  const { listing } = requirement;
  const entries =
    'expression' in listing
      ? await wholeListing(listing.expression, context)
      : (await Promise.all(listing.map((entry) => listingEntry(entry, context)))).flat();
  for (const [index, entry] of entries.entries()) {
    const name = normalizeName(entry.name);
    if (name === '..' || name.startsWith('../')) {
      throw new ToolRunError(`InitialWorkDirRequirement: entry ${index}'s name ${JSON.stringify(entry.name)} leaves the output directory`);
    }
    if (name.startsWith('/') && context.cwlVersion !== 'v1.2') {
      throw new ToolRunError(`InitialWorkDirRequirement: entry ${index}'s name ${JSON.stringify(entry.name)} is absolute, which CWL allows from v1.2 on`);
    }
    if (name.startsWith('/') && context.absoluteRefused !== undefined) {
      throw new ToolRunError(`InitialWorkDirRequirement: entry ${index}'s name ${JSON.stringify(entry.name)} is absolute, ${context.absoluteRefused}`);
    }
    context.staging.relocate(entry.object, name.startsWith('/') ? name : `${context.outdir}/${name}`, entry.writable);
  }
}

async function listingEntry(entry: InitialWorkDirEntry, context: WorkDirContext): Promise<Entry[]> {
  if (entry.kind === 'file') return [objectEntry(structuredClone(entry.value) as unknown as FileObject, undefined, false)];
  if (entry.kind === 'dirent') return dirent(entry, context);
  const result = await context.expressions.evaluate(entry.expression);
  if (!result || (Array.isArray(result) && result.length === 0)) return [];
  return (Array.isArray(result) ? result : [result]).map((item) => evaluatedItem(item, entry.expression));
}

/** `listing: $(...)`: a list of Files, Directories, Dirent-like objects, lists of Files and Directories, and nulls. */
async function wholeListing(expression: string, context: WorkDirContext): Promise<Entry[]> {
  const result = await context.expressions.evaluate(expression);
  if (!Array.isArray(result)) throw new ToolRunError(`InitialWorkDirRequirement: listing ${JSON.stringify(expression)} must give a list, not ${brief(result)}`);
  const classic = context.cwlVersion !== 'v1.2';
  return result.flatMap((item): Entry[] => {
    if (item === null && !classic) return [];
    if (Array.isArray(item) && context.cwlVersion !== 'v1.0') return item.map((inner) => evaluatedItem(inner, expression, true));
    return [evaluatedItem(item, expression)];
  });
}

/** A File, Directory or Dirent-like object an expression gave. */
function evaluatedItem(item: Json, expression: string, filesOnly = false): Entry {
  if (isFileObject(item)) return objectEntry(item, undefined, item.writable === true);
  if (!filesOnly && typeof item === 'object' && item !== null && !Array.isArray(item) && 'entry' in item) {
    const name = typeof item.entryname === 'string' ? item.entryname : undefined;
    const writable = item.writable === true;
    if (typeof item.entry === 'string') return textEntry(item.entry, name, writable);
    if (isFileObject(item.entry)) return objectEntry(item.entry, name, writable);
  }
  throw new ToolRunError(
    `InitialWorkDirRequirement: ${JSON.stringify(expression)} must give Files, Directories or Dirents` +
      `${filesOnly ? '' : ' (or lists of them)'}, not ${brief(item)}`,
  );
}

async function dirent(entry: Extract<InitialWorkDirEntry, { kind: 'dirent' }>, context: WorkDirContext): Promise<Entry[]> {
  const value = await context.expressions.evaluate(entry.entry, null, { trimWhitespace: false });
  if (value === null) return [];
  const name = entry.entryname === undefined ? undefined : await entryName(entry.entryname, context);
  const classic = context.cwlVersion !== 'v1.2';
  if (Array.isArray(value) && value.length === 0 && name === undefined) return [];
  if (Array.isArray(value) && value.length > 0 && value.every(isFileObject)) {
    if (context.cwlVersion === 'v1.0') {
      throw new ToolRunError(`InitialWorkDirRequirement: entry ${JSON.stringify(entry.entry)} gave a list of Files, which CWL allows from v1.1 on`);
    }
    if (name !== undefined) {
      throw new ToolRunError(`InitialWorkDirRequirement: entryname ${JSON.stringify(entry.entryname)} cannot name the list of Files its entry gives`);
    }
    return value.map((file) => objectEntry(file, undefined, entry.writable));
  }
  if (isFileObject(value)) return [objectEntry(value, name, entry.writable)];
  if (typeof value !== 'string' && classic) {
    throw new ToolRunError(
      `InitialWorkDirRequirement: entry ${JSON.stringify(entry.entry)} gave ${brief(value)}; before CWL v1.2 an entry must give text, a File or a Directory`,
    );
  }
  return [textEntry(interpolationText(value), name, entry.writable)];
}

async function entryName(entryname: string, context: WorkDirContext): Promise<string> {
  if (!containsExpression(entryname)) return entryname;
  return context.expressions.string('InitialWorkDirRequirement entryname', entryname);
}

function textEntry(contents: string, name: string | undefined, writable: boolean): Entry {
  if (name === undefined || name === '') throw new ToolRunError(`InitialWorkDirRequirement: an entry of text (${brief(contents)}) needs an entryname`);
  return { object: { class: 'File', basename: lastSegment(name), contents }, name, writable };
}

function objectEntry(object: FileObject, name: string | undefined, writable: boolean): Entry {
  const basename = name ?? basenameOf(object);
  if (basename === '') throw new ToolRunError(`InitialWorkDirRequirement: a ${object.class} entry has no name: ${brief(object)}`);
  if (object.location === undefined && object.contents === undefined && object.class === 'File') {
    throw new ToolRunError(`InitialWorkDirRequirement: a File entry needs a location or contents: ${brief(object)}`);
  }
  return { object: { ...object, basename: lastSegment(basename) }, name: basename, writable };
}

/** A name as POSIX normalizes it: `.` and empty segments dropped, `x/..` collapsed; a leading `/` kept. */
export function normalizeName(name: string): string {
  const segments: string[] = [];
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && segments.length > 0 && segments.at(-1) !== '..') segments.pop();
    else segments.push(segment);
  }
  const joined = segments.join('/');
  return name.startsWith('/') ? `/${joined}` : joined || '.';
}
