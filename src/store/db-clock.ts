import { sql, type RawBuilder } from 'kysely';
import type { StoreCapabilities } from './store.js';

/**
 * The database's clock in seconds since the epoch, with fraction. Leases are measured with it, so that workers on
 * different machines agree on when one has expired without agreeing on the time themselves.
 */
export function dbNow(dialect: StoreCapabilities['dialect']): RawBuilder<number> {
  // PostgreSQL: now() is the start of the transaction, which is what a lease written in it should count from.
  if (dialect === 'postgres') return sql<number>`extract(epoch from now())::double precision`;
  // SQLite: julianday('now') has millisecond resolution; 2440587.5 is the Julian day of 1970-01-01T00:00Z.
  return sql<number>`((julianday('now') - 2440587.5) * 86400.0)`;
}
