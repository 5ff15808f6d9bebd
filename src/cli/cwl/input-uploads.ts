import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '../../client/client.js';
import { notFoundAs } from '../../client/client.js';
import { digestOfFile } from '../../engine/file-hash.js';
import { TransferProgress, uploadFile } from '../commands/data/transfer.js';
import { unsupportedFeature, usageError } from '../exit.js';
import { dataLocationOf, GDFLOW_SCHEME } from '../../domain/cwl/runs/locations.js';

/**
 * The local Files and Directories of a run (the job's, the document's defaults and InitialWorkDirRequirement
 * literals, its `$schemas`) in the account's data store, and the CWL objects rewritten to name them there
 * (docs/cwl.md, "Running CWL").
 *
 * Each top-level File goes with its secondary files into a directory of its own, `/cwl/inputs/<hash>/`, named by the
 * hash of what it holds (every name and its content's sha1), so that the secondary files stay beside their primary
 * (where a tool looks for them) and the same inputs are uploaded once: a directory the store already holds with the
 * same names and sizes is not sent again. A Directory goes whole into `/cwl/inputs/<hash>/<its name>/` (one that holds
 * no file at all goes as a literal Directory: the store keeps files, not empty directories). Locations
 * that are already `gdflow:` stay as they are; literals (`contents`, a `listing` without location) stay literal.
 */

type Json = Record<string, unknown>;

/** One file to upload: its name below the group's directory, where it is here, and what it holds. */
interface GroupFile {
  readonly name: string;
  readonly path: string;
  readonly size: number;
  readonly sha1: string;
}

/** The files of one group directory, `/cwl/inputs/<hash>/`. */
interface UploadGroup {
  readonly hash: string;
  readonly files: readonly GroupFile[];
}

export interface UploadSummary {
  /** Files sent, and their bytes. */
  readonly uploaded: number;
  readonly bytes: number;
  /** Files the store held already. */
  readonly reused: number;
}

const isFileObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && ((value as Json).class === 'File' || (value as Json).class === 'Directory');

const holdsExpression = (text: string): boolean => text.includes('$(') || text.includes('${');

export class InputUploads {
  private readonly groups = new Map<string, UploadGroup>();

  constructor(private readonly client: Client) {}

  /**
   * `value` (a job object, a packed document, a list of `$schemas`) with every File and Directory at a `file:`
   * location rewritten to its place in the store, which `upload` then fills. `where` names the value in messages.
   */
  async rewrite(value: unknown, where: string): Promise<unknown> {
    if (Array.isArray(value)) return Promise.all(value.map((item, i) => this.rewrite(item, `${where}[${i}]`)));
    if (typeof value !== 'object' || value === null) return value;
    if (isFileObject(value)) return this.rewriteFile(value, where);
    const out: Json = {};
    for (const [key, child] of Object.entries(value)) out[key] = await this.rewrite(child, `${where}.${key}`);
    return out;
  }

  /** A packed document: its default Files and literals, and the local ontologies its `$schemas` name. */
  async rewriteDocument(document: Json): Promise<Json> {
    const out = (await this.rewrite(document, 'the document')) as Json;
    if (Array.isArray(document.$schemas)) out.$schemas = await Promise.all(document.$schemas.map((s) => this.rewriteSchema(String(s))));
    return out;
  }

  /** A `$schemas` entry: a local ontology file goes to the store like an input. */
  private async rewriteSchema(uri: string): Promise<string> {
    if (!uri.startsWith('file:')) return uri;
    const object = (await this.rewriteFile({ class: 'File', location: uri }, '$schemas')) as Json;
    return String(object.location);
  }

  private async rewriteFile(file: Json, where: string): Promise<unknown> {
    if (typeof file.location !== 'string') return this.rewriteLiteral(file, where);
    if ((await localFile(file, where)) === undefined) return file;
    const members = await this.members(file, where);
    const group = await groupOf(members);
    // The store keeps files only: a Directory without any goes as the literal it amounts to.
    if (file.class === 'Directory' && group.files.length === 0) return emptyDirectory(file, members[0]!.path);
    this.groups.set(group.hash, group);
    return placed(file, `/cwl/inputs/${group.hash}`);
  }

  /** A File with `contents` or a Directory with a `listing` and no location: its entries may be local files. */
  private async rewriteLiteral(file: Json, where: string): Promise<Json> {
    const out: Json = { ...file };
    for (const key of ['listing', 'secondaryFiles'] as const) {
      if (Array.isArray(file[key])) out[key] = await this.rewrite(file[key], `${where}.${key}`);
    }
    return out;
  }

  /** The primary and its secondary files (recursively), each under its basename, as local paths. */
  private async members(file: Json, where: string): Promise<Array<{ name: string; path: string; directory: boolean }>> {
    const path = (await localFile(file, where))!;
    const own = { name: basenameOf(file), path, directory: file.class === 'Directory' };
    const secondary = Array.isArray(file.secondaryFiles) ? file.secondaryFiles.filter(isFileObject) : [];
    const nested = await Promise.all(
      secondary
        .filter((s) => typeof s.location === 'string' && String(s.location).startsWith('file:'))
        .map((s, i) => this.members(s, `${where}.secondaryFiles[${i}]`)),
    );
    const all = [own, ...nested.flat()];
    return all.filter((m, i) => all.findIndex((o) => o.name === m.name) === i);
  }

  /** Sends every group the store does not hold yet; `progress`: a bar on a terminal. */
  async upload(options: { progress?: boolean } = {}): Promise<UploadSummary> {
    const missing: Array<{ file: GroupFile; name: string }> = [];
    let reused = 0;
    for (const group of this.groups.values()) {
      const prefix = `/cwl/inputs/${group.hash}/`;
      const listed = await this.client.listData(prefix).catch(notFoundAs({ items: [], count: 0 }));
      const held = new Map(listed.items.map((item) => [item.name.slice(item.name.indexOf(':') + 1), item.size]));
      for (const file of group.files) {
        const name = `${prefix}${file.name}`;
        if (held.get(name) === file.size) reused++;
        else missing.push({ file, name });
      }
    }
    const bytes = missing.reduce((sum, m) => sum + m.file.size, 0);
    const progress = new TransferProgress(bytes, missing.length, 'uploading inputs', options.progress ?? false);
    try {
      for (const { file, name } of missing) await uploadFile(this.client, file.path, name, file.size, progress);
    } finally {
      progress.stop();
    }
    return { uploaded: missing.length, bytes, reused };
  }
}

/**
 * The local path of a File or Directory object, checked (it exists, and is a directory exactly when it is a
 * Directory); undefined when it is not a local one: a literal, a gdflow: item, an expression. A location of any other
 * scheme (http:, s3:, ...) is a feature gdflow does not support: exit 33.
 */
async function localFile(file: Json, where: string): Promise<string | undefined> {
  const location = file.location;
  if (typeof location !== 'string' || location.startsWith(GDFLOW_SCHEME) || holdsExpression(location) || location.startsWith('_:')) return undefined;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(location)?.[1];
  if (scheme !== 'file') {
    throw unsupportedFeature(
      [`${scheme ?? 'relative'} locations`],
      `${where}: ${location}: gdflow takes inputs from local files (and gdflow: data items), not from ${scheme ?? 'unresolved'} locations`,
    );
  }
  const path = localPath(location, where);
  const kind = await stat(path).catch(() => undefined);
  if (kind === undefined) throw new Error(`${where}: ${path} does not exist`);
  if ((file.class === 'Directory') !== kind.isDirectory())
    throw new Error(`${where}: ${path} is ${kind.isDirectory() ? 'a directory' : 'not a directory'}, not a ${String(file.class)}`);
  return path;
}

/** Every File and Directory of a job's values that names a local place is there (see localFile), before anything else reads them. */
export async function checkLocalFiles(value: unknown, where: string): Promise<void> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) await checkLocalFiles(item, `${where}[${i}]`);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (isFileObject(value)) await localFile(value, where);
  for (const [key, child] of Object.entries(value)) if (typeof child === 'object') await checkLocalFiles(child, `${where}.${key}`);
}

/** A File or Directory object rewritten to its place in the group directory `base`, its secondary files beside it. */
function placed(file: Json, base: string): Json {
  const name = basenameOf(file);
  const { path: _path, dirname: _dirname, listing: _listing, ...rest } = file;
  const out: Json = { ...rest, location: dataLocationOf(`${base}/${name}`, file.class === 'Directory'), basename: name };
  if (Array.isArray(file.secondaryFiles)) {
    out.secondaryFiles = (file.secondaryFiles as unknown[]).map((s) =>
      isFileObject(s) && typeof s.location === 'string' && String(s.location).startsWith('file:') ? placed(s, base) : s,
    );
  }
  return out;
}

/** A local directory that holds no file (only directories, if anything) as a literal Directory. */
export async function emptyDirectory(file: Json, path: string): Promise<Json> {
  const { location: _location, path: _path, dirname: _dirname, ...rest } = file;
  const listing: Json[] = [];
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory()) listing.push(await emptyDirectory({ class: 'Directory', basename: entry.name }, join(path, entry.name)));
  }
  return { ...rest, basename: basenameOf(file), listing };
}

/** A File's name: its `basename`, else the last segment of its location. */
function basenameOf(file: Json): string {
  if (typeof file.basename === 'string' && file.basename !== '') return file.basename;
  const path = fileURLToPath(String(file.location)).replace(/\/+$/, '');
  return path.slice(path.lastIndexOf('/') + 1);
}

function localPath(location: string, where: string): string {
  try {
    return fileURLToPath(location);
  } catch (error) {
    throw usageError(`${where}: ${location} is not a local file URI (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * The group of some members: every file below them (a Directory's recursively; links followed) with its sha1, and
 * the hash of the whole: sha1 of the sorted lines `name<TAB>sha1` (files) and `name/` (directories, empty ones too;
 * the store keeps files only, so an empty directory does not reach the server).
 */
async function groupOf(members: ReadonlyArray<{ name: string; path: string; directory: boolean }>): Promise<UploadGroup> {
  const files: GroupFile[] = [];
  const lines: string[] = [];
  const visit = async (name: string, path: string, directory: boolean): Promise<void> => {
    if (!directory) {
      const [info, sha1] = await Promise.all([stat(path), digestOfFile(path, 'sha1')]);
      files.push({ name, path, size: info.size, sha1 });
      lines.push(`${name}\t${sha1}`);
      return;
    }
    lines.push(`${name}/`);
    // Links to files are followed; links to directories are not (a link back up would never end), as `gdflow data put`.
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) await visit(`${name}/${entry.name}`, child, true);
      else if (entry.isFile() || (entry.isSymbolicLink() && (await stat(child).catch(() => undefined))?.isFile()))
        await visit(`${name}/${entry.name}`, child, false);
    }
  };
  for (const member of members) await visit(member.name, member.path, member.directory);
  const hash = createHash('sha1').update(lines.sort().join('\n')).digest('hex');
  return { hash, files };
}
