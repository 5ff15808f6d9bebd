import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DataStore } from '../../data/index.js';
import { nameParts } from '../../domain/cwl/types/files.js';
import { basenameOfUri } from '../../domain/cwl/uri.js';
import type { Json } from '../../store/store.js';
import { allowedPath } from '../deferred/staging.js';
import { digestOfFile } from '../file-hash.js';

type JsonMap = { [key: string]: unknown };
const isObject = (value: unknown): value is JsonMap => typeof value === 'object' && value !== null && !Array.isArray(value);
const isFileObject = (value: unknown): value is JsonMap => isObject(value) && (value.class === 'File' || value.class === 'Directory');

/**
 * A CWL run's final outputs stored into its account's data store, under `/cwl/runs/<task id>/` (docs/cwl.md, "Running
 * CWL"), so that they outlive the task's working directories and can be downloaded with the data routes. As cwltool
 * relocates final outputs: each File or Directory of the output object is named by its `basename` (a second one of the
 * same name gets `_2`, `_3`...), its secondary files beside it; a Directory brings its whole tree and is given its
 * listing (deep), each File of which has its size and sha1 checksum. Literal Files and Directories (an ExpressionTool's)
 * are written there too. Returns the output object with the stored files' host locations.
 */
export async function storeFinalOutputs(outputs: Json, dataStore: DataStore, account: string, taskId: string, allowed: readonly string[]): Promise<Json> {
  const store = new RunDirectory(dataStore, account, `/cwl/runs/${taskId}`, allowed);
  return (await store.value(outputs)) as Json;
}

/**
 * How many files are stored at once. Storing one is mostly waiting (a hard link or copy, two fsyncs, a sha1): a scatter's
 * hundreds of outputs one after another took seconds, so they overlap, a few at a time (libuv's pool has 16 threads).
 */
const STORING_AT_ONCE = 8;

class RunDirectory {
  private readonly taken = new Set<string>();
  /** Locations already stored, and the object they became (an output that names the same file twice stores it once). */
  private readonly stored = new Map<string, Promise<JsonMap>>();
  /** Files waiting for their turn to be stored, and how many are being stored. */
  private readonly queue: Array<() => void> = [];
  private storing = 0;

  constructor(
    private readonly dataStore: DataStore,
    private readonly account: string,
    private readonly root: string,
    /** Where outputs may come from: a location elsewhere (made up by an expression) is refused, never copied. */
    private readonly allowed: readonly string[],
  ) {}

  /**
   * The value with its Files and Directories stored. Not async on purpose: the walk, and with it the choice of every
   * name (`_2` for the second `out.txt`), runs in the order of the value before any file is stored; the storing then
   * overlaps.
   */
  value(value: unknown): Promise<unknown> {
    if (Array.isArray(value)) return Promise.all(value.map((item) => this.value(item)));
    if (isFileObject(value)) return this.place(value, this.root);
    if (!isObject(value)) return Promise.resolve(value);
    const entries = Object.entries(value).map(([key, item]) => this.value(item).then((stored) => [key, stored] as const));
    return Promise.all(entries).then((stored) => Object.fromEntries(stored));
  }

  /** A File or Directory (and its secondary files) stored in `dir`, under a name no other output of the run has there. */
  private place(object: JsonMap, dir: string): Promise<JsonMap> {
    const location = typeof object.location === 'string' ? object.location : undefined;
    const known = location !== undefined ? this.stored.get(location) : undefined;
    if (known) return known;
    const basename = typeof object.basename === 'string' && object.basename !== '' ? object.basename : basenameOfUri(location ?? 'output');
    const path = this.freeName(dir, basename);
    const placing = object.class === 'File' ? this.inTurn(() => this.file(object, path)) : this.directory(object, path);
    const secondary = Array.isArray(object.secondaryFiles) ? object.secondaryFiles.filter(isFileObject).map((item) => this.place(item, dir)) : undefined;
    const placed = Promise.all([placing, Promise.all(secondary ?? [])]).then(([main, files]) => (secondary ? { ...main, secondaryFiles: files } : main));
    if (location !== undefined) this.stored.set(location, placed);
    return placed;
  }

  /** Runs `work` when fewer than STORING_AT_ONCE files are being stored. */
  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.storing >= STORING_AT_ONCE) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.storing++;
    try {
      return await work();
    } finally {
      this.storing--;
      this.queue.shift()?.();
    }
  }

  private freeName(dir: string, basename: string): string {
    let path = `${dir}/${basename}`;
    for (let n = 2; this.taken.has(path); n++) path = `${dir}/${basename}_${n}`;
    this.taken.add(path);
    return path;
  }

  private async file(object: JsonMap, path: string): Promise<JsonMap> {
    const ref = { account: this.account, path };
    if (typeof object.location === 'string') await this.dataStore.importFile(ref, await this.source(object.location));
    else await this.dataStore.write(ref, Buffer.from(typeof object.contents === 'string' ? object.contents : '', 'utf8'));
    const host = await this.dataStore.resolve(ref);
    const { location: _location, path: _path, dirname: _dirname, contents, ...kept } = object;
    const basename = path.slice(path.lastIndexOf('/') + 1);
    return {
      ...kept,
      location: pathToFileURL(host).href,
      basename,
      ...nameParts(basename),
      size: (await stat(host)).size,
      checksum: `sha1$${await digestOfFile(host, 'sha1')}`,
      ...(contents !== undefined && object.location !== undefined ? { contents } : {}),
    };
  }

  /** A Directory: its tree from its location, or its literal listing; given its deep listing. */
  private async directory(object: JsonMap, path: string): Promise<JsonMap> {
    // The literal listing's names are chosen now, before anything is awaited (see value).
    const entries =
      typeof object.location !== 'string' && Array.isArray(object.listing) ? object.listing.filter(isFileObject).map((entry) => this.place(entry, path)) : [];
    const host = await this.dataStore.resolve({ account: this.account, path });
    await mkdir(host, { recursive: true });
    if (typeof object.location === 'string') await this.copyTree(await this.source(object.location), path);
    await Promise.all(entries);
    const { location: _location, path: _path, dirname: _dirname, listing: _listing, ...kept } = object;
    return { ...kept, location: pathToFileURL(host).href, basename: path.slice(path.lastIndexOf('/') + 1), listing: await this.listing(host) };
  }

  private source(location: string): Promise<string> {
    if (!location.startsWith('file:')) throw new Error(`an output's location ${location} is not a file of this server`);
    return allowedPath(location, this.allowed, 'an output of the run');
  }

  private async copyTree(source: string, path: string): Promise<void> {
    for (const entry of await readdir(source, { withFileTypes: true })) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory()) {
        await mkdir(await this.dataStore.resolve({ account: this.account, path: child }), { recursive: true });
        await this.copyTree(join(source, entry.name), child);
      } else if (entry.isFile()) await this.dataStore.importFile({ account: this.account, path: child }, join(source, entry.name));
    }
  }

  /** A stored directory's listing, deep: Files with size and checksum, Directories with their own. */
  private async listing(host: string): Promise<JsonMap[]> {
    const entries = (await readdir(host, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const out: JsonMap[] = [];
    for (const entry of entries) {
      const child = join(host, entry.name);
      const location = pathToFileURL(child).href;
      if (entry.isDirectory()) out.push({ class: 'Directory', location, basename: entry.name, listing: await this.listing(child) });
      else if (entry.isFile()) {
        const size = (await stat(child)).size;
        out.push({ class: 'File', location, basename: entry.name, ...nameParts(entry.name), size, checksum: `sha1$${await digestOfFile(child, 'sha1')}` });
      }
    }
    return out;
  }
}
