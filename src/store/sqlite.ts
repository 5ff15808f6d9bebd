import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { KyselyStore } from './kysely-store.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';

/**
 * Open (creating if needed) the embedded SQLite store at `file` and bring its schema up to date.
 * WAL lets readers run beside the one writer; `synchronous=FULL` makes every commit durable.
 */
export async function openSqliteStore(file: string): Promise<KyselyStore> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // Another process (an admin command beside the server) may hold the write lock briefly.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return new KyselyStore(db, { dialect: 'sqlite', rowLocks: false });
}
