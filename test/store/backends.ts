import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresStore, type PostgresStoreOptions } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { skipWithout } from '../helpers/components.js';
import { postgresUnavailable, startPostgres } from '../helpers/postgres.js';

/** A fresh database with a store open on it. */
export interface OpenBackend {
  store: Store;
  /** Another store on the same database: a second connection or pool, as another process or replica has. */
  another: (options?: PostgresStoreOptions) => Promise<Store>;
  /** Close every store opened and drop the database (a plain function: suites destructure it). */
  cleanup: () => Promise<void>;
}

/**
 * Every store backend the contract suite runs against. A backend that cannot run here is listed
 * with the reason it is skipped, so a skipped case is never silent (and in CI, where components
 * are required, it is not skipped but fails).
 */
export interface Backend {
  name: string;
  skip?: string | undefined;
  open(): Promise<OpenBackend>;
}

/** Keep track of the stores opened on one database, to close them all. */
function opened(first: Store, openAnother: (options?: PostgresStoreOptions) => Promise<Store>, removeDatabase: () => Promise<void>): OpenBackend {
  const stores = [first];
  return {
    store: first,
    async another(options) {
      const store = await openAnother(options);
      stores.push(store);
      return store;
    },
    async cleanup() {
      for (const store of stores) await store.close();
      await removeDatabase();
    },
  };
}

export const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'gdflow-store-'));
      const file = join(dir, 'gdflow.db');
      return opened(
        await openSqliteStore(file),
        () => openSqliteStore(file),
        () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
      );
    },
  },
  {
    name: 'postgres',
    skip: skipWithout(postgresUnavailable()),
    async open() {
      const cluster = await startPostgres();
      const url = await cluster.createDatabase();
      // Databases go with the cluster when the test process ends.
      return opened(
        await openPostgresStore(url),
        (options) => openPostgresStore(url, options),
        () => Promise.resolve(),
      );
    },
  },
];
