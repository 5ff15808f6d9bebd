import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataStore } from '../data/index.js';
import { TES_NODE } from '../domain/tes/compile.js';
import type { TesFiles } from '../domain/tes/views.js';
import type { Layout } from './layout.js';

/** What TES views read (domain/tes/views.ts): a TES job's files in its directory, and the data store's items. */
export function tesFiles(layout: Layout, dataStore: DataStore): TesFiles {
  const inJobDir = (taskId: string, relative: string): string | undefined => {
    const path = join(layout.workDir(taskId, TES_NODE), relative);
    return path.startsWith(`${layout.workDir(taskId, TES_NODE)}/`) ? path : undefined;
  };
  return {
    async modified(taskId, relative) {
      const path = inJobDir(taskId, relative);
      return path === undefined ? undefined : (await stat(path).catch(() => undefined))?.mtimeMs;
    },
    async read(taskId, relative, maxBytes) {
      const path = inJobDir(taskId, relative);
      if (path === undefined) return undefined;
      let handle;
      try {
        handle = await open(path, 'r');
      } catch {
        return undefined;
      }
      try {
        const { size } = await handle.stat();
        const length = Math.min(size, maxBytes);
        const buffer = Buffer.alloc(length);
        await handle.read(buffer, 0, length, size - length);
        return buffer.toString('utf8');
      } finally {
        await handle.close();
      }
    },
    async listStored(ref) {
      const dir = ref.path.replace(/\/$/, '');
      const prefix = `${ref.account}:${dir}/`;
      const items = await dataStore.list(ref.account, `${dir}/`).catch(() => []);
      return items.map((item) => ({ relative: item.name.slice(prefix.length), size: item.size }));
    },
    async storedSize(ref) {
      return (await dataStore.stat(ref).catch(() => undefined))?.size;
    },
  };
}
