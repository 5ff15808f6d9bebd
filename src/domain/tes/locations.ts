import { realpathSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { DataPathError, parseDataName, type DataRef } from '../../data/index.js';
import { PUBLIC_ACCOUNT } from '../access.js';
import { invalid } from '../errors.js';
import type { FetchHosts } from '../ga4gh/fetch-hosts.js';
import type { StageSource, TesJobPart } from '../tasks/job-spec.js';
import { checkContainerPath, isUnder, parentDir } from './paths.js';

/**
 * Where a TES task's inputs come from and its outputs go (docs/ga4gh.md, "Inputs" and "Outputs"): `gdflow:` data
 * names, `file://` paths below the directories the operator allows (inputs: --tes-file-roots; outputs:
 * --tes-output-roots), `http(s)://` from the hosts the operator allows (--fetch-hosts). A local path is checked
 * lexically (normalised, under a root) before anything is looked up, so that nothing tells a client what exists
 * elsewhere on the server, then by its real path, so that a symbolic link cannot lead out of a root.
 */

/** What the operator lets TES tasks reach (config: tesFileRoots, tesOutputRoots, fetchHosts). */
export interface TesStagingPolicy {
  /** Host directories file:// inputs may read from (real paths). */
  fileRoots: readonly string[];
  /** Host directories file:// outputs may be written to (real paths). */
  outputRoots: readonly string[];
  /** Hosts http(s):// inputs may be fetched from. */
  fetchHosts: FetchHosts;
}

type TesInput = { url?: string; content?: string; type?: 'FILE' | 'DIRECTORY'; path: string };
type TesOutput = { url: string; path: string; path_prefix?: string; type?: 'FILE' | 'DIRECTORY' };
export type StoreItem = TesJobPart['store'][number];

/** Largest `content` of one input (TES asks for at least 128 KiB). */
export const MAX_CONTENT_BYTES = 1024 * 1024;
const WILDCARD = /[*?[]/;
const short = (url: string) => url.slice(0, 200);

/** The data store item a `gdflow:` URL names: `gdflow:/path` (the caller's), `gdflow://ACCOUNT/path`. */
function dataUrl(url: string, account: string, field: string): DataRef {
  const name = url.startsWith('gdflow://') ? `${url.slice('gdflow://'.length).replace('/', ':/')}` : url.slice('gdflow:'.length);
  try {
    return parseDataName(name, account);
  } catch (error) {
    throw invalid(`${field} '${short(url)}': ${error instanceof DataPathError ? error.message : String(error)}`);
  }
}

/** The path of a file:// URL (or a bare absolute path), checked to be normalised and below one of `roots`. */
function localPath(url: string, roots: readonly string[], field: string, option: string): { path: string; root: string } {
  let path: string;
  try {
    path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  } catch {
    throw invalid(`${field} '${short(url)}' is not a valid file:// URL`);
  }
  if (roots.length === 0)
    throw invalid(`${field} '${short(url)}': this server ${option === '--tes-file-roots' ? 'reads' : 'writes'} no local files (${option} is not set)`);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const root = posix.normalize(path) === path ? roots.find((r) => isUnder(path, r)) : undefined;
  if (root === undefined) throw invalid(`${field} '${short(url)}' is not under a directory the operator allows (${option}: ${roots.join(', ')})`);
  return { path, root };
}

/** A file:// input, as a real path under a root, of the type the input says. */
function localInput(url: string, type: 'FILE' | 'DIRECTORY', roots: readonly string[], field: string): string {
  const { path } = localPath(url, roots, field, '--tes-file-roots');
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw invalid(`${field} '${short(url)}' does not exist on the server`);
  }
  if (!roots.some((root) => isUnder(real, root))) throw invalid(`${field} '${short(url)}' leads out of the directories the operator allows (a symbolic link)`);
  const isDirectory = statSync(real).isDirectory();
  if (isDirectory !== (type === 'DIRECTORY')) throw invalid(`${field} '${short(url)}' is ${isDirectory ? 'a directory' : 'not a directory'}; type is ${type}`);
  return real;
}

/**
 * A file:// output's place: below an output root, and no symbolic link on the way from the root to what exists of it
 * (the worker checks again as it writes: tes-staging.ts).
 */
function localOutput(url: string, roots: readonly string[], field: string): { root: string; path: string } {
  const { path, root } = localPath(url, roots, field, '--tes-output-roots');
  if (path === root) throw invalid(`${field} '${short(url)}' is an output root itself; name a file or directory below it`);
  let existing = path;
  for (;;) {
    try {
      if (realpathSync(existing) !== existing) throw invalid(`${field} '${short(url)}' goes through a symbolic link (${existing})`);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      existing = posix.dirname(existing);
    }
  }
  return { root, path };
}

export function stageSource(input: TesInput, account: string, policy: TesStagingPolicy, field: string): StageSource | { problem: string } {
  if (input.content !== undefined && input.content !== '') {
    if (Buffer.byteLength(input.content) > MAX_CONTENT_BYTES)
      throw invalid(`${field}.content is larger than ${MAX_CONTENT_BYTES} bytes; store the file and give its url`);
    if (input.type === 'DIRECTORY') throw invalid(`${field}.content cannot make a DIRECTORY`);
    return { kind: 'content', text: input.content };
  }
  const url = input.url;
  if (url === undefined || url === '') throw invalid(`${field} needs a url or a content`);
  if (url.startsWith('gdflow:')) {
    const ref = dataUrl(url, account, `${field}.url`);
    if (ref.account !== account && ref.account !== PUBLIC_ACCOUNT)
      throw invalid(`${field}.url '${short(url)}' is data of account '${ref.account}'; a task reads its own account's data and public data`);
    return { kind: 'data', account: ref.account, path: ref.path };
  }
  if (url.startsWith('file://') || url.startsWith('/')) return { kind: 'file', path: localInput(url, input.type ?? 'FILE', policy.fileRoots, `${field}.url`) };
  if (/^https?:\/\//i.test(url)) {
    if (input.type === 'DIRECTORY') throw invalid(`${field}: an http(s) URL cannot be a DIRECTORY`);
    if (!policy.fetchHosts.allows(url))
      throw invalid(
        `${field}.url '${short(url)}': this server does not fetch from that host (${policy.fetchHosts.none ? 'it fetches from none' : `--fetch-hosts: ${policy.fetchHosts.list.join(', ')}`})`,
      );
    return { kind: 'url', url };
  }
  return { problem: `${field}.url '${short(url)}': gdflow reads gdflow: data names, file:// and http(s):// URLs, not ${url.split(':')[0]!.slice(0, 20)}:` };
}

/** The container directory an output needs, and where a pattern's matches are looked for: the part before any wildcard. */
function patternBase(path: string, field: string): string {
  const segments = path.split('/');
  const first = segments.findIndex((segment) => WILDCARD.test(segment));
  const base = segments.slice(0, first).join('/');
  if (base === '') throw invalid(`${field} '${short(path)}' has a wildcard directly under /; put it in a directory such as /data`);
  return checkContainerPath(base, field);
}

/** An output's place in the job's `store` list (or why this server cannot store it), and the directory the task must have for it. */
export function storeItem(output: TesOutput, account: string, policy: TesStagingPolicy, field: string): { item?: StoreItem; problem?: string; dir: string } {
  const type = output.type ?? 'FILE';
  const pattern = WILDCARD.test(output.path);
  let path: string;
  let prefix: string | undefined;
  if (pattern) {
    if (
      output.path.length > 1024 ||
      /[\0\n\r,]/.test(output.path) ||
      !output.path.startsWith('/') ||
      output.path.split('/').some((s) => s === '..' || s === '.')
    )
      throw invalid(`${field}.path '${short(output.path)}' must be an absolute path (no . or .., no NUL, line break or comma)`);
    path = output.path;
    const base = patternBase(path, `${field}.path`);
    prefix = output.path_prefix ?? base;
    if (!path.startsWith(prefix)) throw invalid(`${field}.path_prefix '${short(prefix)}' does not begin ${field}.path '${short(path)}'`);
  } else path = checkContainerPath(output.path, `${field}.path`);
  const dir = pattern ? patternBase(path, `${field}.path`) : type === 'DIRECTORY' ? path : parentDir(path, `${field}.path`);
  const common = { path, type, url: output.url, ...(prefix !== undefined ? { prefix } : {}) };
  if (output.url.startsWith('gdflow:')) {
    const target = dataUrl(output.url, account, `${field}.url`);
    if (target.account !== account)
      throw invalid(`${field}.url '${short(output.url)}' is in account '${target.account}'; a task writes only to its own account's data`);
    return { item: { ...common, target }, dir };
  }
  if (output.url.startsWith('file://')) return { item: { ...common, file: localOutput(output.url, policy.outputRoots, `${field}.url`) }, dir };
  return {
    dir,
    problem: `${field}.url '${short(output.url)}': gdflow stores outputs in its data store (gdflow:/name) and below its output roots (file://), not at ${output.url.split(':')[0]!.slice(0, 20)}: URLs`,
  };
}
