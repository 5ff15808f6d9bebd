import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { CachedStore } from './cached-store.js';
import { KyselyStore } from './kysely-store.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';

/**
 * Open (creating if needed) the embedded SQLite store at `file` and bring its schema up to date.
 * WAL lets readers run beside the one writer; `synchronous=FULL` makes every commit durable.
 */
export async function openSqliteStore(file: string): Promise<CachedStore> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // Another process (an admin command beside the server) may hold the write lock briefly.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const store = new KyselyStore(db, { dialect: 'sqlite', rowLocks: false });
  // data_version changes whenever another connection (an admin command) commits.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  return new CachedStore(store, () => dataVersion.get() as number);
}

/**
 * Kysely prepares every query afresh; preparing costs more than running a small query. Reuse
 * prepared statements by their SQL text (Kysely runs each to completion before the next, so a
 * statement is never busy when handed out again).
 */
function withStatementCache(sqlite: BetterSqlite3.Database, limit = 1000): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= limit) statements.clear();
        statement = sqlite.prepare(sql) as unknown as SqliteStatement;
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
