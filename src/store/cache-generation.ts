/**
 * A counter in the settings table that every write of something the read cache holds (accounts,
 * projects, keys, tools, workflows, pins, run templates) increments in its own transaction. Other
 * processes on the same database compare it with the value they last saw to know their cache is
 * stale: on PostgreSQL that is the only way to know (SQLite has PRAGMA data_version). The increment
 * also sends the new value on a PostgreSQL channel, delivered when the transaction commits, so
 * listeners hear of it at once instead of at their next poll.
 */
import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Database } from './schema.js';

export const CACHE_GENERATION_KEY = 'cache_generation';
export const CACHE_GENERATION_CHANNEL = 'gdflow_cache_generation';

/** Create the counter if it is not there yet (at open; two processes may do it at once). */
export async function ensureCacheGeneration(db: Kysely<Database>): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: CACHE_GENERATION_KEY, value: '0' })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

/**
 * Increment the counter inside `trx`. Writers call it last, right before their commit: the row
 * stays locked until then, so holding it no longer than that keeps writers from queueing on it.
 */
export async function bumpCacheGeneration(trx: Kysely<Database>, dialect: SqlDialect): Promise<void> {
  const row = await trx
    .updateTable('settings')
    .set({ value: sql<string>`cast(cast(value as bigint) + 1 as text)` })
    .where('key', '=', CACHE_GENERATION_KEY)
    .returning('value')
    .executeTakeFirst();
  if (row) await dialect.notify(trx, CACHE_GENERATION_CHANNEL, row.value);
}

/** The counter's committed value (0 when it does not exist). */
export async function readCacheGeneration(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', CACHE_GENERATION_KEY).executeTakeFirst();
  return row ? Number(row.value) : 0;
}
