import { invalid } from '../../errors.js';
import type { DocumentSource } from '../document/source.js';
import { pathToReference } from '../uri.js';
import { isObject } from '../../json.js';

/**
 * Data locations of CWL runs (docs/cwl.md, "Running CWL"): over HTTP, a File or Directory in a project's data store is
 * written `gdflow:<data path>` (`gdflow:cwl/inputs/3f2a/reads.fq`, a Directory `gdflow:cwl/inputs/ab/dir/`), its path
 * percent-encoded segment by segment as a file: URI's (`my reads.fq` is `my%20reads.fq`). The server makes those host
 * file: URIs under the account's data store before anything runs, and back when it answers.
 */

export const GDFLOW_SCHEME = 'gdflow:';

/** The account's data store, as the CWL run service sees it (the server gives the data store's). */
export interface CwlDataLocations {
  /**
   * The host file: URI of the file (or directory, for a Directory) at `path` (`/cwl/inputs/x.fq`) of the account's data
   * store, or undefined when nothing of that kind is there. A path the data store refuses is an InvalidInput.
   */
  hostUri(account: string, path: string, cls: 'File' | 'Directory'): Promise<string | undefined>;
  /** The data path (`/cwl/runs/...`) of a host file: URI in the account's data store, or undefined when it is elsewhere. */
  dataPath(account: string, uri: string): string | undefined;
  /** The text of a file of the account's data store (a document's `$schemas` ontology); rejects when it cannot be read. */
  readText(account: string, path: string): Promise<string>;
  /** The bytes of a file of the account's data store, or undefined when it is missing or larger than `limit` bytes. */
  readBytes(account: string, path: string, limit: number): Promise<Uint8Array | undefined>;
  /** The data paths of the files below a directory of the account's data store, at any depth ([] for none). */
  listFiles(account: string, path: string): Promise<string[]>;
}

/** A document source of `gdflow:` URIs in the account's data store: the ontologies a document's `$schemas` name. */
export function dataDocuments(account: string, locations: CwlDataLocations): DocumentSource {
  return {
    read: (uri) => {
      if (uri.startsWith(GDFLOW_SCHEME)) return locations.readText(account, dataPathOf(uri));
      return Promise.reject(new Error(`only gdflow: data locations are read, not ${uri}`));
    },
  };
}

/**
 * A `gdflow:` location's data path: `gdflow:cwl/x.fq` and `gdflow:/cwl/x.fq` are `/cwl/x.fq`, `gdflow:cwl/my%20x.fq` is
 * `/cwl/my x.fq`; a Directory's loses its trailing `/`. A segment that is not valid percent-encoding is taken as written.
 */
export function dataPathOf(location: string): string {
  const rest = location.slice(GDFLOW_SCHEME.length).replace(/^\/+/, '').replace(/\/+$/, '');
  return `/${rest.split('/').map(decodeSegment).join('/')}`;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The `gdflow:` location of a data path (`/cwl/runs/t/my x.txt` is `gdflow:cwl/runs/t/my%20x.txt`); a Directory's ends in `/`. */
export const dataLocationOf = (path: string, directory: boolean): string =>
  `${GDFLOW_SCHEME}${pathToReference(path.replace(/^\/+/, ''))}${directory ? '/' : ''}`;

/**
 * Every `location` (or, without one, `path`) of every File and Directory in a posted document or job object made a
 * host file: URI: `gdflow:` ones are looked up in the account's data store (a missing one is refused); any other
 * location (a client's file, the network) is refused, naming where it is. Literals (`contents`, a Directory's
 * `listing` without a location) stay as they are. Returns a new value.
 */
export async function hostLocations(value: unknown, account: string, locations: CwlDataLocations, where: string): Promise<unknown> {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const [i, item] of value.entries()) out.push(await hostLocations(item, account, locations, `${where}[${i}]`));
    return out;
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = await hostLocations(item, account, locations, `${where}.${key}`);
  if (value.class !== 'File' && value.class !== 'Directory') return out;
  const given = typeof value.location === 'string' ? 'location' : typeof value.path === 'string' ? 'path' : undefined;
  if (given === undefined) return out;
  const location = value[given] as string;
  if (!location.startsWith(GDFLOW_SCHEME)) {
    throw invalid(`${where}.${given} '${location.slice(0, 200)}' is not a data location: upload the ${value.class} and give it as gdflow:<data path>`);
  }
  const cls = value.class;
  const host = await locations.hostUri(account, dataPathOf(location), cls);
  if (host === undefined) {
    const what = cls === 'File' ? 'file' : 'directory';
    throw invalid(`${where}.${given} '${location.slice(0, 200)}': no ${what} there in the data store of account '${account}'`);
  }
  delete out.path;
  out.location = host;
  return out;
}

/** The host locations of an output object made `gdflow:` locations again (those outside the account's store are left out). */
export function dataLocations(value: unknown, account: string, locations: CwlDataLocations): unknown {
  if (Array.isArray(value)) return value.map((item) => dataLocations(item, account, locations));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = dataLocations(item, account, locations);
  if ((value.class === 'File' || value.class === 'Directory') && typeof value.location === 'string') {
    const path = locations.dataPath(account, value.location);
    if (path !== undefined) out.location = dataLocationOf(path, value.class === 'Directory');
  }
  return out;
}
