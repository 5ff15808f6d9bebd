import { mkdirSync, realpathSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DataPathError, type DataStore } from '../../data/index.js';
import type { CwlDataLocations } from '../../domain/cwl/runs/locations.js';
import { invalid } from '../../domain/errors.js';

/** The largest ontology read (EDAM's OWL file is 3.5 MB). */
const TEXT_LIMIT = 64 * 1024 * 1024;

/**
 * `gdflow:` locations over the data store (domain/cwl/runs/locations.ts): a data path of an account is a host path
 * below `<store root>/<account>/`, found by the data store's own resolution (no symbolic link followed, nothing outside
 * the account's directory).
 */
export class DataStoreLocations implements CwlDataLocations {
  private readonly roots: readonly string[];

  constructor(private readonly dataStore: DataStore) {
    mkdirSync(dataStore.root, { recursive: true });
    // Host URIs are made from the store's real root; the root as configured is recognised too.
    this.roots = [...new Set([realpathSync(dataStore.root), dataStore.root])];
  }

  async hostUri(account: string, path: string, cls: 'File' | 'Directory'): Promise<string | undefined> {
    let host: string;
    try {
      host = await this.dataStore.resolve({ account, path });
    } catch (error) {
      if (error instanceof DataPathError) throw invalid(error.message);
      throw error;
    }
    const info = await stat(host).catch(() => undefined);
    if (info === undefined || (cls === 'File' ? !info.isFile() : !info.isDirectory())) return undefined;
    return pathToFileURL(host).href;
  }

  async readText(account: string, path: string): Promise<string> {
    const host = await this.dataStore.resolve({ account, path });
    const info = await stat(host);
    if (!info.isFile() || info.size > TEXT_LIMIT) throw new Error(`gdflow:${path.slice(1)} is not a file of at most ${TEXT_LIMIT} bytes`);
    return readFile(host, 'utf8');
  }

  async readBytes(account: string, path: string, limit: number): Promise<Uint8Array | undefined> {
    // A path the store refuses (a symbolic link on the way) is no file to read.
    const host = await this.dataStore.resolve({ account, path }).catch((error: unknown) => {
      if (error instanceof DataPathError) return undefined;
      throw error;
    });
    const info = host === undefined ? undefined : await stat(host).catch(() => undefined);
    if (host === undefined || info === undefined || !info.isFile() || info.size > limit) return undefined;
    return readFile(host);
  }

  async listFiles(account: string, path: string): Promise<string[]> {
    const items = await this.dataStore.list(account, `${path.replace(/\/+$/, '')}/`);
    return items.map((item) => item.name.slice(item.name.indexOf(':') + 1));
  }

  dataPath(account: string, uri: string): string | undefined {
    if (!uri.startsWith('file:')) return undefined;
    const host = fileURLToPath(uri);
    for (const root of this.roots) {
      const base = join(root, account) + sep;
      if (host.startsWith(base)) return `/${host.slice(base.length).split(sep).join('/')}`;
    }
    return undefined;
  }
}
