import { skipWithout } from './components.js';
import { postgresUnavailable, startPostgres } from './postgres.js';

/**
 * The store backends end-to-end tests run against: each gives a database URL for `gdflow serve --database` (empty:
 * the embedded SQLite file in the data root). A backend that cannot run here says why it is skipped.
 */
export interface StoreBackend {
  name: string;
  skip?: string | undefined;
  /** A database for the suite, and how to drop it (a plain function: suites destructure it). */
  database(): Promise<{ url: string; cleanup: () => Promise<void> }>;
}

export const STORE_BACKENDS: StoreBackend[] = [
  {
    name: 'sqlite',
    database() {
      return Promise.resolve({ url: '', cleanup: () => Promise.resolve() });
    },
  },
  {
    name: 'postgres',
    skip: skipWithout(postgresUnavailable()),
    async database() {
      return { url: await (await startPostgres()).createDatabase(), cleanup: () => Promise.resolve() };
    },
  },
];
