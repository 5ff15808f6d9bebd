import type { Json, JsonMap } from '../expressions/index.js';
import type { CwlType, LoadListing, SecondaryFileSpec } from '../model.js';
import { coerceValue } from '../types/coerce.js';

/**
 * Walking the values of a run. Inside the tool semantics values are plain mutable JSON (a deep copy of the input
 * object), which the preparation fills in step by step: contents, listings, secondary files, staged paths.
 */

/** A File or Directory object, as mutable JSON. */
export type FileObject = JsonMap & { class: 'File' | 'Directory' };

export const isFileObject = (value: Json | undefined): value is FileObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value.class === 'File' || value.class === 'Directory');

/** The Files and Directories of a value, outermost first; `nested` also visits secondaryFiles and listings. */
export function fileObjects(value: Json | undefined, nested: boolean): FileObject[] {
  const found: FileObject[] = [];
  const visit = (v: Json | undefined): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (isFileObject(v)) {
      found.push(v);
      if (nested) {
        visit(v.secondaryFiles);
        visit(v.listing);
      }
    } else if (typeof v === 'object' && v !== null) Object.values(v).forEach(visit);
  };
  visit(value);
  return found;
}

/** Whether a value is of a type (the member of a union a value takes is the first it matches, as in cwltool). */
export function matchesType(type: CwlType, value: Json): boolean {
  return coerceValue(type, value, { path: '', at: undefined }, { issues: [] }) !== undefined;
}

/** What a parameter (or record field) says about the Files and Directories of its value. */
export interface FileSettings {
  readonly loadContents?: boolean;
  readonly loadListing?: LoadListing;
  readonly secondaryFiles: readonly SecondaryFileSpec[];
  readonly format?: readonly string[] | string;
}

export type FileVisitor = (file: FileObject, settings: FileSettings, path: string) => Promise<void>;

/**
 * Visits the Files and Directories of a value along its type, with the settings of the parameter or record field
 * that holds them: an array's items take the array's, a union's value the member it matches, a value of type Any
 * no settings. `path` names the value in messages (`inputs.reads[2]`).
 */
export async function visitTypedFiles(type: CwlType, value: Json | undefined, settings: FileSettings, path: string, visit: FileVisitor): Promise<void> {
  if (value === null || value === undefined) return;
  switch (type.kind) {
    case 'union': {
      const member = type.types.find((t) => t.kind !== 'null' && matchesType(t, value));
      if (member !== undefined) await visitTypedFiles(member, value, settings, path, visit);
      return;
    }
    case 'array':
      if (Array.isArray(value)) for (const [i, item] of value.entries()) await visitTypedFiles(type.items, item, settings, `${path}[${i}]`, visit);
      return;
    case 'record':
      if (typeof value !== 'object' || Array.isArray(value)) return;
      for (const field of type.fields) await visitTypedFiles(field.type, value[field.name], field, `${path}.${field.name}`, visit);
      return;
    case 'File':
    case 'Directory':
      if (isFileObject(value)) await visit(value, settings, path);
      return;
    case 'Any':
      for (const file of fileObjects(value, false)) await visit(file, NO_SETTINGS, path);
      return;
    default:
      return;
  }
}

export const NO_SETTINGS: FileSettings = { secondaryFiles: [] };

/** A value as a list: a list as it is, null as none, anything else as a list of one. */
export const asList = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]);

/** The last segment of a path. */
export const lastSegment = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The directory part of an absolute path (`/` for a child of the root). */
export const parentOf = (path: string): string => path.slice(0, Math.max(path.lastIndexOf('/'), 0)) || '/';

/**
 * The secondary file name of a pattern for a primary's basename (CWL's rule): each leading `^` removes one
 * extension (none left to remove: the rest is appended), then the rest is appended.
 */
export function secondaryName(basename: string, pattern: string): string {
  if (!pattern.startsWith('^')) return basename + pattern;
  const dot = basename.lastIndexOf('.');
  return dot < 0 ? basename + pattern.replace(/^\^+/, '') : secondaryName(basename.slice(0, dot), pattern.slice(1));
}

/** A string field of a File or Directory (basename, location, path, ...), or undefined when absent or not a string. */
export function textField(file: FileObject, field: string): string | undefined {
  const value = file[field];
  return typeof value === 'string' ? value : undefined;
}

/** A File's or Directory's name: its basename, else the last segment of its location or path (all a literal may give). */
export const basenameOf = (file: FileObject): string =>
  textField(file, 'basename') ?? lastSegment(textField(file, 'location') ?? textField(file, 'path') ?? '');
