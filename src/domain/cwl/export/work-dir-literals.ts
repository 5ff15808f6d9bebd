import { isObject, type JsonObject } from '../../json.js';
import { dataPathOf, GDFLOW_SCHEME, type CwlDataLocations } from '../runs/locations.js';

/**
 * An imported document's InitialWorkDirRequirement listings made runnable elsewhere (docs/cwl.md, "Export"). At import
 * the Files and Directories a listing names are uploaded into the data store and written `gdflow:<data path>`, a scheme
 * only gdflow reads: cwltool refuses it there ("Unsupported scheme 'gdflow'") and no other runner could fetch it. On
 * export each such File becomes a File literal (`basename` and `contents`) and each Directory a Directory literal (its
 * files as File literals, its subdirectories as Directory literals), which every CWL v1.1+ runner stages as it staged
 * the originals. Only text can be a literal: a file that is not UTF-8, or larger than LITERAL_LIMIT, keeps its
 * `gdflow:` location (it runs on gdflow, and is named in the docs' limits).
 */

/** The largest file written into an exported document as a literal. */
export const LITERAL_LIMIT = 1024 * 1024;

/** What the export reads of the account's data store (the server gives its data store's). */
export interface ExportFiles {
  /** The bytes of the file at `path`, or undefined when it is missing or larger than `limit` bytes. */
  readBytes(path: string, limit: number): Promise<Uint8Array | undefined>;
  /** The data paths of the files below the directory at `path` (at any depth); [] for none. */
  listFiles(path: string): Promise<string[]>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** An imported version's document as exported: its listings' files (in the account's data store) as literals, where it can read them. */
export function exportedAsStored(document: JsonObject, account: string, locations: CwlDataLocations | undefined): Promise<JsonObject> {
  if (locations === undefined) return Promise.resolve(document);
  return workDirLiterals(document, {
    readBytes: (path, limit) => locations.readBytes(account, path, limit),
    listFiles: (path) => locations.listFiles(account, path),
  });
}

/** The document with its InitialWorkDir listings' `gdflow:` Files and Directories as literals, where they can be. */
export async function workDirLiterals(document: JsonObject, files: ExportFiles): Promise<JsonObject> {
  return (await walk(document, files, false)) as JsonObject;
}

/** Every value below, a listing's items made literals (`inListing`: the value is, or is inside, a listing). */
async function walk(value: unknown, files: ExportFiles, inListing: boolean): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((item) => walk(item, files, inListing)));
  if (!isObject(value)) return value;
  if (inListing && (value.class === 'File' || value.class === 'Directory')) return literal(value, files);
  // The list form ({class: InitialWorkDirRequirement, listing}) and the map form (requirements: {InitialWorkDirRequirement: {listing}}).
  const workDir = value.class === 'InitialWorkDirRequirement';
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'default') out[key] = item;
    else if (workDir && key === 'listing') out[key] = await walk(item, files, true);
    else if (key === 'InitialWorkDirRequirement' && isObject(item))
      out[key] = await walk({ ...item, class: 'InitialWorkDirRequirement' }, files, false).then(withoutClass(item));
    else out[key] = await walk(item, files, inListing);
  }
  return out;
}

/** The map form's requirement back without the class its walk was given. */
const withoutClass =
  (original: JsonObject) =>
  (walked: unknown): unknown => {
    if (!isObject(walked) || 'class' in original) return walked;
    const { class: _class, ...rest } = walked;
    return rest;
  };

/** A File or Directory of a listing as a literal, or as it is when it is not in the data store or cannot be one. */
async function literal(item: JsonObject, files: ExportFiles): Promise<JsonObject> {
  const location = typeof item.location === 'string' ? item.location : undefined;
  if (location === undefined || !location.startsWith(GDFLOW_SCHEME)) return item;
  const path = dataPathOf(location);
  const basename = typeof item.basename === 'string' && item.basename !== '' ? item.basename : path.slice(path.lastIndexOf('/') + 1);
  const { location: _location, path: _path, ...kept } = item;
  if (item.class === 'File') {
    const contents = await textOf(path, files);
    return contents === undefined ? item : { ...kept, basename, contents };
  }
  const listing = await directoryListing(path, files);
  return listing === undefined ? item : { ...kept, basename, listing };
}

async function textOf(path: string, files: ExportFiles): Promise<string | undefined> {
  const bytes = await files.readBytes(path, LITERAL_LIMIT);
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A stored directory's tree as literals; undefined when one of its files cannot be a literal. */
async function directoryListing(path: string, files: ExportFiles): Promise<JsonObject[] | undefined> {
  const root: JsonObject[] = [];
  const directories = new Map<string, JsonObject[]>([['', root]]);
  const listingOf = (relative: string): JsonObject[] => {
    const known = directories.get(relative);
    if (known) return known;
    const slash = relative.lastIndexOf('/');
    const listing: JsonObject[] = [];
    listingOf(relative.slice(0, Math.max(slash, 0))).push({ class: 'Directory', basename: relative.slice(slash + 1), listing });
    directories.set(relative, listing);
    return listing;
  };
  for (const file of (await files.listFiles(path)).sort()) {
    const relative = file.slice(path.length + 1);
    const contents = await textOf(file, files);
    if (contents === undefined) return undefined;
    const slash = relative.lastIndexOf('/');
    listingOf(relative.slice(0, Math.max(slash, 0))).push({ class: 'File', basename: relative.slice(slash + 1), contents });
  }
  return root;
}
