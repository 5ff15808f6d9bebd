import { createHash } from 'node:crypto';
import { loadDocument } from '../cwl/document/load.js';
import { packDocument, type PackedDocument } from '../cwl/document/pack.js';
import type { DocumentSource } from '../cwl/document/source.js';
import { isFileObject } from '../cwl/document/file-literals.js';
import { dataLocationOf, dataPathOf, GDFLOW_SCHEME, type CwlDataLocations } from '../cwl/runs/locations.js';
import { pathToReference, resolveReference } from '../cwl/uri.js';
import { invalid, InvalidInput } from '../errors.js';
import type { JsonObject } from '../json.js';
import type { FetchHosts } from '../ga4gh/fetch-hosts.js';
import type { WesRunRequest } from './request.js';

/**
 * The CWL of a WES run (docs/ga4gh.md, "WES"): the document a workflow_url names (an attached file, or a document in
 * the data store) loaded with every file it runs and packed into one, as `gdflow cwl run` packs it on a client; and the
 * Files of the document and of workflow_params made `gdflow:` data locations, as RunCwl takes them.
 *
 * A workflow_url over http(s) is fetched, with every document it names relative to it, from the hosts the operator
 * allows (--fetch-hosts), each one checked (RemoteDocuments).
 *
 * While loading, attachments are at `file:///wes/attachments/<relative path>` and the data store at
 * `file:///wes/data/<data path>`, so that relative references (`run: tools/sort.cwl`, `location: reads.fq`) resolve
 * as they do on the client's disk. Attached files are stored in the data store under `/wes/attachments/<hash>/`,
 * where <hash> is that of every attached name and content: the same attachments posted again go to the same place.
 */

/** What fetches a workflow_url's documents over http(s) (engine/remote-fetch.ts). */
export interface RemoteDocuments {
  readonly hosts: FetchHosts;
  /** The text at `url`, at most `maxBytes`; an error when its host (or a redirect's) is not allowed, or it cannot be had. */
  text(url: string, maxBytes: number): Promise<string>;
}

/** Largest document fetched over http(s). */
const MAX_REMOTE_BYTES = 8 * 1024 * 1024;
const ATTACHED = 'file:///wes/attachments/';
const DATA = 'file:///wes/data/';

const decodePath = (encoded: string): string =>
  encoded
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');

/** Where a run's attachments are stored in the data store: `/wes/attachments/<hash of names and contents>`. */
export function attachmentsDirectory(attachments: Map<string, Buffer>): string {
  const hash = createHash('sha256');
  for (const name of [...attachments.keys()].sort()) hash.update(`${name}\0${createHash('sha256').update(attachments.get(name)!).digest('hex')}\0`);
  return `/wes/attachments/${hash.digest('hex').slice(0, 24)}`;
}

class WesDocumentSource implements DocumentSource {
  constructor(
    private readonly attachments: Map<string, Buffer>,
    private readonly account: string,
    private readonly locations: CwlDataLocations,
    private readonly remote: RemoteDocuments,
  ) {}

  read(uri: string): Promise<string> {
    if (uri.startsWith(ATTACHED)) {
      const data = this.attachments.get(decodePath(uri.slice(ATTACHED.length)));
      return data === undefined
        ? Promise.reject(new Error(`no file '${decodePath(uri.slice(ATTACHED.length))}' is attached`))
        : Promise.resolve(data.toString('utf8'));
    }
    if (uri.startsWith(DATA)) return this.locations.readText(this.account, `/${decodePath(uri.slice(DATA.length))}`);
    if (/^https?:\/\//.test(uri)) return this.remote.text(uri, MAX_REMOTE_BYTES);
    return Promise.reject(new Error(`only attached files, gdflow: data items and http(s) URLs are read, not ${uri}`));
  }
}

/** The document a workflow_url names (an attachment, a data item, an http(s) URL), packed; and the base its job's relative locations resolve against. */
export async function loadWesDocument(
  request: WesRunRequest,
  account: string,
  locations: CwlDataLocations,
  remote: RemoteDocuments,
): Promise<{ packed: PackedDocument; base: string }> {
  const { url } = request;
  if (url.kind === 'registered') throw new Error('a registered workflow has no document to load');
  if (url.kind === 'remote' && !remote.hosts.allows(url.url))
    throw invalid(
      `workflow_url '${url.url.slice(0, 200)}': this server does not fetch from that host (${remote.hosts.none ? 'it fetches from none' : `--fetch-hosts: ${remote.hosts.list.join(', ')}`})`,
    );
  const uri =
    url.kind === 'attachment'
      ? `${ATTACHED}${pathToReference(url.path)}`
      : url.kind === 'remote'
        ? url.url
        : `${DATA}${pathToReference(dataPathOf(url.path).slice(1))}`;
  const source = new WesDocumentSource(request.attachments, account, locations, remote);
  const loaded = await loadDocument(`${uri}${url.fragment}`, source).catch((error: unknown) => {
    // A document that is not the client's own: say which field brought it in.
    if (url.kind === 'remote' && error instanceof InvalidInput) throw invalid(`workflow_url '${url.url.slice(0, 200)}': ${error.message}`);
    throw error;
  });
  // The job's relative locations: attachments, beside a data store document, and (over http) attachments again: a
  // client attaches its inputs to a workflow it names by URL.
  const base = url.kind === 'data' ? uri.slice(0, uri.lastIndexOf('/') + 1) : ATTACHED;
  return { packed: packDocument(loaded), base };
}

/**
 * `value` (a packed document, or workflow_params) with every File and Directory location (or path) made a `gdflow:`
 * data location: a relative one resolved against `base`, an attachment's to where it is stored (`stored`), a data
 * item's to its own. Others are left for RunCwl to refuse, naming them. `where` names the value in messages.
 */
export function dataLocationsOf(value: unknown, base: string, attachments: Map<string, Buffer>, stored: string, where: string): unknown {
  if (Array.isArray(value)) return value.map((item, i) => dataLocationsOf(item, base, attachments, stored, `${where}[${i}]`));
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) out[key] = dataLocationsOf(item, base, attachments, stored, `${where}.${key}`);
  if (!isFileObject(value)) return out;
  const field = typeof value.location === 'string' ? 'location' : typeof value.path === 'string' ? 'path' : undefined;
  if (field === undefined) return out;
  const given = value[field] as string;
  if (given.startsWith(GDFLOW_SCHEME)) return out;
  const directory = value.class === 'Directory';
  const absolute = resolveReference(given, base);
  let path: string | undefined;
  if (absolute.startsWith(ATTACHED)) {
    const relative = decodePath(absolute.slice(ATTACHED.length)).replace(/\/+$/, '');
    const attached = directory ? [...attachments.keys()].some((name) => name.startsWith(`${relative}/`)) : attachments.has(relative);
    if (!attached)
      throw invalid(
        `${where}.${field} '${given.slice(0, 200)}' names no attached ${directory ? 'directory' : 'file'} ('${relative.slice(0, 200)}' is not a workflow_attachment)`,
      );
    path = `${stored}/${relative}`;
  } else if (absolute.startsWith(DATA)) {
    path = `/${decodePath(absolute.slice(DATA.length)).replace(/\/+$/, '')}`;
  }
  if (path === undefined) return out;
  delete out.path;
  out.location = dataLocationOf(path, directory);
  return out;
}

/**
 * A packed document's `$schemas` (its format ontologies, absolute URIs) made `gdflow:` data locations as
 * `gdflow cwl run` sends them: an attached ontology (`file:///wes/attachments/EDAM.owl`) at its stored place, one of
 * the data store at its own; others (http) are left as they are. Without this an attached ontology was never read, and
 * every format check against it failed (conformance tests format_checking_subclass, _equivalentclass through WES).
 */
export function schemaLocationsOf(document: JsonObject, attachments: Map<string, Buffer>, stored: string): JsonObject {
  if (!Array.isArray(document.$schemas)) return document;
  const $schemas = (document.$schemas as unknown[]).map((uri): unknown => {
    if (typeof uri !== 'string') return uri;
    if (uri.startsWith(DATA)) return dataLocationOf(`/${decodePath(uri.slice(DATA.length))}`, false);
    if (!uri.startsWith(ATTACHED)) return uri;
    const relative = decodePath(uri.slice(ATTACHED.length));
    if (!attachments.has(relative)) throw invalid(`the document's $schemas '${relative.slice(0, 200)}' names no attached file`);
    return dataLocationOf(`${stored}/${relative}`, false);
  });
  return { ...document, $schemas };
}

/** The base of a registered workflow's job: its relative locations name attachments. */
export const ATTACHMENTS_BASE = ATTACHED;
