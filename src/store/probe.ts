import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { redactedUrl } from './postgres.js';
import type { DatabaseLocation } from './location.js';

/** The table every gdflow store has from its first migration on (migrate.ts names it). */
const MARKER = 'gdflow_migrations';

/**
 * Whether a location holds a gdflow store, found without creating anything: a SQLite file that exists and has
 * gdflow's tables, or a PostgreSQL database with gdflow's tables. An empty file or a database of something else is
 * no store. `gdflow admin` asks this before it opens (and so migrates, and so creates) a store, so that a command
 * run in the wrong directory does not make a new, empty one (docs/operating.md).
 */
export async function storeExists(location: DatabaseLocation, sqliteFile: string): Promise<boolean> {
  if (location.kind === 'sqlite') {
    if (sqliteFile === ':memory:' || !existsSync(sqliteFile)) return false;
    // fileMustExist: a missing file (removed meanwhile) is an error, never a new database.
    const db = new BetterSqlite3(sqliteFile, { fileMustExist: true });
    try {
      return db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(MARKER) !== undefined;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url, application_name: 'gdflow' });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new Error(`cannot connect to PostgreSQL at ${redactedUrl(location.url)}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  try {
    // In the schemas of the search path, where the migrations create the tables.
    const result = await client.query<{ present: boolean }>('select to_regclass($1) is not null as present', [MARKER]);
    return result.rows[0]?.present === true;
  } finally {
    await client.end();
  }
}
