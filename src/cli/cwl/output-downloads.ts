import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '../../client/client.js';
import { digestOfFile } from '../../engine/file-hash.js';
import { downloadFile, TransferProgress } from '../commands/data/transfer.js';
import { dataLocationOf, dataPathOf as dataPath, GDFLOW_SCHEME } from '../../domain/cwl/runs/locations.js';

/**
 * A run's output object as the server gives it (Files and Directories at `gdflow:` locations) made local: every File
 * and Directory downloaded into the output directory under its basename (`_2`, `_3`, ... after a name already used),
 * secondary files beside their primaries, and the object rewritten as cwl-runners print it: `location` (a `file:`
 * URI) and `path` of the local file, `basename`, `size` and `checksum` (sha1) computed from the file written here,
 * Directories with their `listing`, deep, made from what is on disk. What else the server said of a File (`format`,
 * `contents`, ...) is kept. A literal File (with `contents` and no location) is written from its contents.
 */

type Json = Record<string, unknown>;

/**
 * Where the files of an output object are read: the data store through gdflow's API (`gdflow cwl run`, its `gdflow:`
 * locations), or the URLs a WES server gives (scripts/wes-runner).
 */
export interface OutputFiles {
  /** What the locations this reads look like, for the message about one it does not (`a gdflow: location`). */
  readonly kind: string;
  owns(location: string): boolean;
  /** The last name of a location, for a File or Directory the server gave no basename. */
  nameOf(location: string): string;
  download(location: string, target: string, progress: TransferProgress): Promise<void>;
  /** Every file below a Directory's location: its own location and its path below the directory. */
  list(location: string): Promise<Array<{ location: string; relative: string }>>;
}

/** The data store through gdflow's API, for `gdflow cwl run`. */
export class DataStoreFiles implements OutputFiles {
  readonly kind = 'in the data store (a gdflow: location)';
  constructor(private readonly client: Client) {}
  owns(location: string): boolean {
    return location.startsWith(GDFLOW_SCHEME);
  }
  nameOf(location: string): string {
    return dataPath(location).split('/').pop() ?? '';
  }
  async download(location: string, target: string, progress: TransferProgress): Promise<void> {
    await downloadFile(this.client, dataPath(location), target, progress);
  }
  async list(location: string): Promise<Array<{ location: string; relative: string }>> {
    const prefix = `${dataPath(location)}/`;
    const { items } = await this.client.listData(prefix);
    return items.map((item) => {
      const path = item.name.slice(item.name.indexOf(':') + 1);
      return { location: dataLocationOf(path, false), relative: path.slice(prefix.length) };
    });
  }
}

const isFileObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && ((value as Json).class === 'File' || (value as Json).class === 'Directory');

/** Keys a local File or Directory gets anew: the server's would name its own places. */
const REPLACED = ['location', 'path', 'dirname', 'size', 'checksum', 'listing', 'secondaryFiles'];

/** Downloads at once: each is a request and a small file for most runs (a scatter's hundreds one after another took seconds). */
const DOWNLOADS_AT_ONCE = 8;

export class OutputDownloads {
  /** Names taken in the output directory. */
  private readonly taken = new Set<string>();
  /** The same item named twice in the outputs is downloaded once. */
  private readonly done = new Map<string, Promise<Json>>();
  /** No bar: how many files a run's outputs hold is only known as they are listed. */
  private readonly progress = new TransferProgress(0, 0, 'downloading outputs', false);
  /** Downloads waiting for their turn, and how many are under way. */
  private readonly queue: Array<() => void> = [];
  private downloading = 0;

  private readonly files: OutputFiles;

  /** `from`: a gdflow client (its data store), or another source of the output object's files. */
  constructor(
    from: Client | OutputFiles,
    private readonly outdir: string,
  ) {
    this.files = 'owns' in from ? from : new DataStoreFiles(from);
  }

  /** The output object with every File and Directory local. */
  async localize(value: unknown): Promise<unknown> {
    try {
      await mkdir(this.outdir, { recursive: true });
      return await this.walk(value);
    } finally {
      this.progress.stop();
    }
  }

  /**
   * Not async on purpose: the walk, and with it the choice of every local name (`_2` for a second `out.txt`), runs in
   * the order of the output object before anything is downloaded; the downloads then overlap.
   */
  private walk(value: unknown): Promise<unknown> {
    if (Array.isArray(value)) return Promise.all(value.map((item) => this.walk(item)));
    if (typeof value !== 'object' || value === null) return Promise.resolve(value);
    if (isFileObject(value)) return this.file(value);
    const entries = Object.entries(value).map(([key, child]) => this.walk(child).then((local) => [key, local] as const));
    return Promise.all(entries).then((local) => Object.fromEntries(local));
  }

  private file(file: Json): Promise<Json> {
    const location = typeof file.location === 'string' ? file.location : undefined;
    const key = location ?? `literal:${JSON.stringify(file)}`;
    let local = this.done.get(key);
    if (!local) {
      const name = this.unusedName(basenameOf(file, location === undefined ? '' : this.files.nameOf(location)));
      const secondary = Array.isArray(file.secondaryFiles) ? file.secondaryFiles.map((s) => (isFileObject(s) ? this.file(s) : Promise.resolve(s))) : undefined;
      local = Promise.all([this.fetch(file, location, name), Promise.all(secondary ?? [])]).then(([main, files]) =>
        secondary ? { ...main, secondaryFiles: files } : main,
      );
      this.done.set(key, local);
    }
    return local;
  }

  private async fetch(file: Json, location: string | undefined, name: string): Promise<Json> {
    const target = join(this.outdir, name);
    if (location === undefined) {
      if (file.class === 'Directory') await this.literalDirectory(file, target);
      else await writeFile(target, typeof file.contents === 'string' ? file.contents : '');
    } else if (!this.files.owns(location)) {
      throw new Error(`the server gave output ${name} at ${location}, not ${this.files.kind}`);
    } else if (file.class === 'Directory') await this.directory(location, file, target);
    else await this.download(location, target);
    const kept = Object.fromEntries(Object.entries(file).filter(([k]) => !REPLACED.includes(k)));
    return { ...kept, ...(await describe(target, file.class === 'Directory')), basename: name };
  }

  /** One file downloaded when fewer than DOWNLOADS_AT_ONCE are under way. */
  private async download(location: string, target: string): Promise<void> {
    if (this.downloading >= DOWNLOADS_AT_ONCE) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.downloading++;
    try {
      await this.files.download(location, target, this.progress);
    } finally {
      this.downloading--;
      this.queue.shift()?.();
    }
  }

  /** Every file below the Directory, and the (empty) directories its listing names. */
  private async directory(location: string, file: Json, target: string): Promise<void> {
    await mkdir(target, { recursive: true });
    const items = await this.files.list(location);
    await Promise.all(
      items.map(async (item) => {
        // A name below the directory must stay below it.
        const parts = item.relative.split('/');
        if (parts.some((part) => part === '' || part === '.' || part === '..')) throw new Error(`the server listed '${item.relative}' in output ${location}`);
        const destination = join(target, ...parts);
        await mkdir(join(destination, '..'), { recursive: true });
        await this.download(item.location, destination);
      }),
    );
    await makeListedDirectories(file, target);
  }

  /** A Directory without location: its listing's entries written below it. */
  private async literalDirectory(file: Json, target: string): Promise<void> {
    await mkdir(target, { recursive: true });
    const inner = new OutputDownloads(this.files, target);
    for (const entry of Array.isArray(file.listing) ? file.listing : []) if (isFileObject(entry)) await inner.file(entry);
  }

  private unusedName(name: string): string {
    let candidate = name;
    for (let n = 2; this.taken.has(candidate); n++) candidate = `${name}_${n}`;
    this.taken.add(candidate);
    return candidate;
  }
}

/** The subdirectories a server's listing names (empty ones included: the store holds files only). */
async function makeListedDirectories(directory: Json, target: string): Promise<void> {
  for (const entry of Array.isArray(directory.listing) ? directory.listing : []) {
    if (!isFileObject(entry) || entry.class !== 'Directory' || typeof entry.basename !== 'string' || /^\.{0,2}$|\//.test(entry.basename)) continue;
    const path = join(target, entry.basename);
    await mkdir(path, { recursive: true });
    await makeListedDirectories(entry, path);
  }
}

function basenameOf(file: Json, fallback: string): string {
  const given = typeof file.basename === 'string' ? file.basename : '';
  const name = given !== '' ? given : fallback;
  // A name the server gave must stay a name: no path out of the output directory.
  return name === '' || name === '.' || name === '..' || name.includes('/') ? (file.class === 'Directory' ? 'directory' : 'file') : name;
}

/** A local File or Directory as a cwl-runner prints it. */
async function describe(path: string, directory: boolean): Promise<Json> {
  const common = { class: directory ? 'Directory' : 'File', location: pathToFileURL(path).href, path };
  if (!directory) {
    const [info, sha1] = await Promise.all([stat(path), digestOfFile(path, 'sha1')]);
    return { ...common, size: info.size, checksum: `sha1$${sha1}` };
  }
  const listing: Json[] = [];
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    listing.push({ ...(await describe(join(path, entry.name), entry.isDirectory())), basename: entry.name });
  }
  return { ...common, listing };
}
