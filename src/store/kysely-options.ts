/**
 * The options of the Kysely store (kysely-store.ts), in a file of their own: DefinitionStore, which KyselyStore
 * extends, takes them too, and would otherwise import the file that imports it.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { WorkEvents } from './store.js';

/** What differs between the backends beyond SQL itself (which the Kysely dialect handles). */
export interface KyselyStoreOptions {
  /**
   * Runs `fn` in a transaction whose commit may return before it is on disk (SQLite: `synchronous=NORMAL` for
   * that commit; PostgreSQL: `synchronous_commit = off`). It survives a crash of the server process, not of the
   * machine. Without it, such transactions are ordinary, durable ones.
   */
  relaxedTransaction?: <T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;
  /**
   * Runs `fn` in a durable transaction: on disk when the returned promise settles. Without it, an ordinary
   * transaction (durable by the backend's default). SQLite's own fsync would block the event loop (sqlite.ts).
   */
  durableTransaction?: <T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;
  onClose?: () => Promise<void>;
  /** How workers are woken (default: within this process only). */
  events?: WorkEvents;
}
