import { open, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, posix, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { glob } from 'glob';
import { digestOfFile } from '../file-hash.js';
import type { FileContentReader } from '../../domain/cwl/contents.js';
import { OutsideOutputDirectory, type EntryStat, type FileAccess, type ListedEntry, type OutputDirectory } from '../../domain/cwl/tool/index.js';

/**
 * The tool semantics' file interfaces over the local filesystem: LocalFileAccess reads input Files and
 * Directories by their file: URIs, LocalOutputDirectory a finished run's output directory.
 */

/**
 * Input Files and Directories by file: URI; with `roots`, anything that resolves outside them is refused. It is
 * also the workflow layer's FileContentReader (loadContents of workflow and step inputs).
 */
export class LocalFileAccess implements FileAccess, FileContentReader {
  private readonly roots: readonly string[] | undefined;

  constructor(options: { roots?: readonly string[] } = {}) {
    this.roots = options.roots;
  }

  async stat(location: string): Promise<EntryStat | undefined> {
    const path = await this.path(location, true);
    return path === undefined ? undefined : statOf(path);
  }

  async readPrefix(location: string, bytes: number): Promise<Uint8Array> {
    return readPrefixOf(await this.existing(location), bytes);
  }

  async list(location: string): Promise<readonly ListedEntry[]> {
    return listOf(await this.existing(location));
  }

  async sha1(location: string): Promise<string> {
    return sha1Of(await this.existing(location));
  }

  async head(location: string, bytes: number): Promise<{ text: string; whole: boolean }> {
    const read = await this.readPrefix(location, bytes + 1);
    return { text: new TextDecoder().decode(read.subarray(0, bytes)), whole: read.length <= bytes };
  }

  private async existing(location: string): Promise<string> {
    const path = await this.path(location, false);
    if (path === undefined) throw new Error(`${location} does not exist`);
    return path;
  }

  /** The real path of a location (undefined when nothing is there and `missingOk`). */
  private async path(location: string, missingOk: boolean): Promise<string | undefined> {
    if (!location.startsWith('file:')) throw new Error(`only local files can be read, not ${location.split(':')[0]}: locations (${location})`);
    const real = await realOrMissing(fileURLToPath(location));
    if (real === undefined) {
      if (missingOk) return undefined;
      throw new Error(`${location} does not exist`);
    }
    if (this.roots !== undefined && !(await insideAny(real, this.roots))) throw new Error(`${location} is outside the directories inputs may come from`);
    return real;
  }
}

/**
 * A finished run's output directory. Paths are relative to it; `..` and absolute paths are refused, and so is
 * every path whose real path (symbolic links followed) is outside the directory: a tool's `ln -s /etc/passwd out`
 * makes the collection fail rather than hand out a host file.
 */
export class LocalOutputDirectory implements OutputDirectory {
  readonly location: string;
  constructor(private readonly root: string) {
    this.location = pathToFileURL(root).href.replace(/\/+$/, '');
  }

  /** POSIX glob(3): no braces, no extended globs, `**` is `*`, a leading dot matched only explicitly. */
  async glob(pattern: string): Promise<readonly string[]> {
    const matches = await glob(pattern, { cwd: this.root, dot: false, nobrace: true, noext: true, noglobstar: true, follow: false, posix: true });
    return matches.map((m) => posix.normalize(m)).filter((m) => m !== '.' && !m.startsWith('../'));
  }

  async stat(path: string): Promise<EntryStat | undefined> {
    const real = await this.resolve(path, true);
    return real === undefined ? undefined : statOf(real);
  }

  async readPrefix(path: string, bytes: number): Promise<Uint8Array> {
    return readPrefixOf((await this.resolve(path, false))!, bytes);
  }

  async list(path: string): Promise<readonly ListedEntry[]> {
    const real = (await this.resolve(path, false))!;
    const entries = await listOf(real);
    for (const entry of entries) await this.resolve(path === '.' ? entry.basename : `${path}/${entry.basename}`, true);
    return entries;
  }

  async sha1(path: string): Promise<string> {
    return sha1Of((await this.resolve(path, false))!);
  }

  private async resolve(path: string, missingOk: boolean): Promise<string | undefined> {
    const normal = posix.normalize(path);
    if (isAbsolute(normal) || normal === '..' || normal.startsWith('../')) throw new OutsideOutputDirectory(`${path} is outside the output directory`);
    const real = await realOrMissing(join(this.root, normal));
    if (real === undefined) {
      if (missingOk) return undefined;
      throw new Error(`${path} does not exist in the output directory`);
    }
    if (!(await insideAny(real, [this.root]))) throw new OutsideOutputDirectory(`${path} leads outside the output directory (to ${real}), which is refused`);
    return real;
  }
}

async function realOrMissing(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function insideAny(real: string, roots: readonly string[]): Promise<boolean> {
  for (const root of roots) {
    const base = await realOrMissing(root);
    if (base === undefined) continue;
    const inside = relative(base, real);
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) return true;
  }
  return false;
}

async function statOf(path: string): Promise<EntryStat | undefined> {
  const info = await stat(path);
  if (info.isFile()) return { class: 'File', size: info.size };
  return info.isDirectory() ? { class: 'Directory' } : undefined;
}

async function readPrefixOf(path: string, bytes: number): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    let filled = 0;
    while (filled < bytes) {
      const { bytesRead } = await handle.read(buffer, filled, bytes - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

async function listOf(path: string): Promise<ListedEntry[]> {
  const entries: ListedEntry[] = [];
  for (const name of await readdir(path)) {
    const info = await stat(join(path, name)).catch(() => undefined);
    if (info?.isFile()) entries.push({ basename: name, class: 'File', size: info.size });
    else if (info?.isDirectory()) entries.push({ basename: name, class: 'Directory' });
  }
  return entries;
}

const sha1Of = (path: string): Promise<string> => digestOfFile(path, 'sha1');
