import { join } from 'node:path';
import { parseDatabase } from './location.js';
import { openPostgresStore } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';
import type { QueryObserver } from './query-log.js';

export interface StoreLocation {
  /** `sqlite:<file>` / a file path, or `postgres://...`; empty means `<dataDir>/gdflow.db`. */
  database?: string | undefined;
  dataDir: string;
  /** Told the time of every statement (for the store query latency metric). */
  onQuery?: QueryObserver['onQuery'];
}

export async function openStore(location: StoreLocation): Promise<Store> {
  const parsed = parseDatabase(location.database ?? '');
  // The configuration has refused such a value already (config.ts, with every other problem): this is for callers
  // that hand a location over without reading a configuration.
  if ('problem' in parsed) throw new Error(`database: ${parsed.problem}`);
  const observer = location.onQuery ? { onQuery: location.onQuery } : {};
  if (parsed.kind === 'postgres') return openPostgresStore(parsed.url, observer);
  return openSqliteStore(parsed.file ?? join(location.dataDir, 'gdflow.db'), observer);
}
