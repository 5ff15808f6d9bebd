/**
 * The SQL that differs between SQLite and PostgreSQL beyond what the Kysely dialects translate:
 * the database clock, locks, notifications, byte-order sorting, and the one column type the
 * migrations need per dialect. Everything else in the store is written once for both.
 */
import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Which backend a Kysely instance (or a transaction of one, or a migration's) talks to. */
export function dialectOf<DB>(db: Kysely<DB>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export interface SqlDialect {
  readonly name: DialectName;
  /**
   * Whether SELECT ... FOR UPDATE / FOR SHARE exist. Without them (SQLite) a write transaction
   * holds the database's single write lock from its first statement (BEGIN IMMEDIATE), which
   * serialises it against every other writer anyway.
   */
  readonly rowLocks: boolean;
  /**
   * The database's clock in seconds since the epoch, with fraction. PostgreSQL: the start of the
   * transaction (now()), the same for every statement in it.
   */
  epochNow(): RawBuilder<number>;
  /**
   * Hold a lock named by `key` until the transaction ends, so that transactions taking the same key
   * run one after the other (PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the
   * key; a collision only serialises more than needed). SQLite: nothing to do, writers are serial.
   */
  lockKey<DB>(trx: Kysely<DB>, key: string): Promise<void>;
  /** Lock the rows a select reads until the transaction ends: FOR UPDATE or FOR SHARE where there are row locks. */
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, mode: 'update' | 'share'): SelectQueryBuilder<DB, TB, O>;
  /**
   * A column to sort by in byte order, as SQLite's default BINARY collation does: PostgreSQL would
   * otherwise sort text by the database's locale (where 'B' < 'a' may not hold), so listings could
   * come out in a different order on the two backends.
   */
  byteOrder(column: string): RawBuilder<string>;
  /** Send `payload` on `channel` to every listening session when the transaction commits (PostgreSQL only). */
  notify<DB>(trx: Kysely<DB>, channel: string, payload: string): Promise<void>;
  /**
   * `column` contains `text`, ASCII letters in either case; LIKE's wildcards in `text` are plain characters. SQLite's
   * LIKE is blind to ASCII case already; on PostgreSQL, ILIKE is what a trigram index (migration 0008) serves.
   */
  containsText(column: string, text: string): RawBuilder<boolean>;
}

/** A LIKE pattern for "contains `text`", its wildcards escaped with a backslash. */
const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const SQLITE: SqlDialect = {
  name: 'sqlite',
  rowLocks: false,
  // julianday('now') has millisecond resolution; 2440587.5 is the Julian day of 1970-01-01T00:00Z.
  epochNow: () => sql<number>`((julianday('now') - 2440587.5) * 86400.0)`,
  lockKey: () => Promise.resolve(),
  lockRows: (query) => query,
  byteOrder: (column) => sql<string>`${sql.ref(column)}`,
  notify: () => Promise.resolve(),
  containsText: (column, text) => sql<boolean>`${sql.ref(column)} like ${containsPattern(text)} escape '\\'`,
};

export const POSTGRES: SqlDialect = {
  name: 'postgres',
  rowLocks: true,
  // extract() returns numeric (a string through pg); double precision comes back as a number.
  epochNow: () => sql<number>`extract(epoch from now())::double precision`,
  async lockKey(trx, key) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  },
  lockRows: (query, mode) => (mode === 'update' ? query.forUpdate() : query.forShare()),
  byteOrder: (column) => sql<string>`${sql.ref(column)} collate "C"`,
  async notify(trx, channel, payload) {
    await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
  },
  containsText: (column, text) => sql<boolean>`${sql.ref(column)} ilike ${containsPattern(text)} escape '\\'`,
};

export const DIALECTS: Record<DialectName, SqlDialect> = { sqlite: SQLITE, postgres: POSTGRES };

/**
 * For migrations: an integer primary key the database numbers itself. SQLite: `integer primary key
 * autoincrement` (what the first migrations always wrote, so existing databases are unchanged);
 * PostgreSQL has no autoincrement keyword and gets an identity column instead.
 */
export function autoIncrementPrimaryKey<DB>(db: Kysely<DB>): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return dialectOf(db) === 'postgres' ? (c) => c.primaryKey().generatedByDefaultAsIdentity() : (c) => c.primaryKey().autoIncrement();
}
