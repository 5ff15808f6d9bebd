import type { CwlIssue, SourcePosition } from '../errors.js';
import { positionOf } from '../document/positions.js';
import type { CwlDirectory, CwlFile } from '../model.js';
import { basenameOfUri, pathToReference } from '../uri.js';
import { describeValue } from './describe.js';

type Json = Record<string, unknown>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Where a value sits: its path for messages (`inputs.reads[2]`) and its place in the job file, if known. */
export interface ValuePlace {
  readonly path: string;
  readonly at: SourcePosition | undefined;
}

export const child = (place: ValuePlace, container: unknown, key: string | number): ValuePlace => ({
  path: typeof key === 'number' ? `${place.path}[${key}]` : `${place.path}.${key}`,
  at: positionOf(container, key) ?? place.at,
});

/**
 * A File object as the model holds it (CwlFile): `location` (or `path`, made a location) or literal
 * `contents`; `basename` from the location when not given; `nameroot`/`nameext` from the basename
 * (as Python's splitext: `reads.fq.gz` is `reads.fq` + `.gz`, `.bashrc` has no extension);
 * `size`, `checksum`, `format`, `dirname` kept when well-formed; `secondaryFiles` likewise. Fields
 * CWL does not define are dropped. Problems are added to `issues`; the result is then undefined.
 */
export function coerceFile(value: Json, place: ValuePlace, issues: CwlIssue[]): CwlFile | undefined {
  const before = issues.length;
  const file: Mutable<CwlFile> = { class: 'File', ...locationFields(value, place, issues, 'contents') };
  for (const key of ['dirname', 'checksum', 'format', 'contents'] as const) {
    const field = value[key];
    if (field === undefined || field === null) continue;
    if (typeof field === 'string') file[key] = field;
    else issues.push(issue(child(place, value, key), `must be a string, not ${describeValue(field)}`));
  }
  if (value.size !== undefined && value.size !== null) {
    if (Number.isSafeInteger(value.size) && (value.size as number) >= 0) file.size = value.size as number;
    else issues.push(issue(child(place, value, 'size'), `must be a whole number of bytes, not ${describeValue(value.size)}`));
  }
  if (file.basename !== undefined) Object.assign(file, nameParts(file.basename));
  const secondaryFiles = listing(value, 'secondaryFiles', place, issues);
  if (secondaryFiles) file.secondaryFiles = secondaryFiles;
  return issues.length > before ? undefined : file;
}

/** A Directory object: `location` (or `path`) or a literal `listing`, `basename`, and the listing's entries. */
export function coerceDirectory(value: Json, place: ValuePlace, issues: CwlIssue[]): CwlDirectory | undefined {
  const before = issues.length;
  const directory: Mutable<CwlDirectory> = { class: 'Directory', ...locationFields(value, place, issues, 'listing') };
  const entries = listing(value, 'listing', place, issues);
  if (entries) directory.listing = entries;
  return issues.length > before ? undefined : directory;
}

/** `location` (or a `path` turned into one), `basename`; one of them or `literal` must be there. */
function locationFields(value: Json, place: ValuePlace, issues: CwlIssue[], literal: 'contents' | 'listing'): { location?: string; basename?: string } {
  const out: { location?: string; basename?: string } = {};
  const location = value.location ?? (typeof value.path === 'string' ? pathLocation(value.path) : value.path);
  if (typeof location === 'string' && location !== '') out.location = location;
  else if (location !== undefined && location !== null) issues.push(issue(child(place, value, 'location'), `must be a URI, not ${describeValue(location)}`));
  else if (value[literal] === undefined || value[literal] === null) {
    issues.push(issue(place, `a ${String(value.class)} needs a location, a path or ${literal === 'contents' ? 'contents' : 'a listing'}`));
  }
  const basename = value.basename;
  if (typeof basename === 'string' && basename !== '' && !basename.includes('/')) out.basename = basename;
  else if (basename !== undefined && basename !== null)
    issues.push(issue(child(place, value, 'basename'), `must be a file name without '/', not ${describeValue(basename)}`));
  else if (out.location !== undefined && !out.location.startsWith('_:')) out.basename = basenameOfUri(out.location);
  return out;
}

/** An absolute local path as a file URI; anything else (already a URI) as it is. */
const pathLocation = (path: string): string => (path.startsWith('/') ? `file://${pathToReference(path)}` : path);

function listing(value: Json, key: 'secondaryFiles' | 'listing', place: ValuePlace, issues: CwlIssue[]): (CwlFile | CwlDirectory)[] | undefined {
  const list = value[key];
  if (list === undefined || list === null) return undefined;
  const at = child(place, value, key);
  if (!Array.isArray(list)) {
    issues.push(issue(at, `must be a list of Files and Directories, not ${describeValue(list)}`));
    return undefined;
  }
  return list.flatMap((entry, index) => {
    const entryPlace = child(at, list, index);
    const cls = typeof entry === 'object' && entry !== null ? (entry as Json).class : undefined;
    if (cls === 'File') return coerceFile(entry as Json, entryPlace, issues) ?? [];
    if (cls === 'Directory') return coerceDirectory(entry as Json, entryPlace, issues) ?? [];
    issues.push(issue(entryPlace, `must be a File or a Directory, not ${describeValue(entry)}`));
    return [];
  });
}

/** Python's os.path.splitext on a basename: the last extension, leading dots not counting. */
export function nameParts(basename: string): { nameroot: string; nameext: string } {
  const dot = basename.lastIndexOf('.');
  const leadingDots = basename.length - basename.replace(/^\.+/, '').length;
  if (dot <= leadingDots - 1 || dot === -1) return { nameroot: basename, nameext: '' };
  return { nameroot: basename.slice(0, dot), nameext: basename.slice(dot) };
}

export const issue = (place: ValuePlace, message: string): CwlIssue =>
  place.at ? { message: `${place.path}: ${message}`, at: place.at } : { message: `${place.path}: ${message}` };
