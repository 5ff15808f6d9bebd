import { join } from 'node:path';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

export interface StoreLocation {
  /** `sqlite:<file>` / a file path, or `postgres://...`; empty means `<dataDir>/gdflow.db`. */
  database?: string | undefined;
  dataDir: string;
}

export async function openStore(location: StoreLocation): Promise<Store> {
  const url = location.database ?? '';
  if (/^postgres(ql)?:\/\//.test(url)) {
    throw new Error('PostgreSQL is not supported by this build yet; use the embedded SQLite store');
  }
  const file = url === '' ? join(location.dataDir, 'gdflow.db') : url.replace(/^sqlite:/, '');
  return openSqliteStore(file);
}
