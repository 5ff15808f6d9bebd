import { mkdirSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, SqliteDriver, type Driver, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { CachedStore } from './cached-store.js';
import { ensureCacheGeneration } from './cache-generation.js';
import { SQLITE } from './dialect.js';
import { KyselyStore } from './kysely-store.js';
import { queryLog, type QueryObserver } from './query-log.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';

/**
 * Open (creating if needed) the embedded SQLite store at `file` and bring its schema up to date.
 * WAL lets readers run beside the one writer; `synchronous=FULL` makes every commit durable.
 */
export async function openSqliteStore(file: string, options: QueryObserver = {}): Promise<CachedStore> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  return withMigrationLock(file, async () => {
    const sqlite = new BetterSqlite3(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    // Another process (an admin command beside the server) may hold the write lock briefly.
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(sqlite), ...queryLog(options) });
    try {
      await migrateToLatest(db);
      await ensureCacheGeneration(db);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    const relaxedTransaction = normalSyncTransaction(sqlite);
    const synced = file === ':memory:' ? undefined : walSyncedTransaction(relaxedTransaction, `${file}-wal`);
    const store = new KyselyStore(
      db,
      { dialect: 'sqlite', rowLocks: SQLITE.rowLocks },
      {
        relaxedTransaction,
        ...(synced && {
          durableTransaction: synced.run,
          onClose: async () => {
            await synced.close();
            await db.destroy();
          },
        }),
      },
    );
    // data_version changes whenever another connection (an admin command) commits.
    const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    return new CachedStore(store, () => dataVersion.get() as number);
  });
}

/** How long a statement waits for another process's write lock before it fails with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Every transaction the store runs writes. SQLite's default BEGIN is deferred: a transaction that
 * reads, then writes after another connection committed in between, fails with SQLITE_BUSY_SNAPSHOT
 * (no waiting helps: what it read is stale). BEGIN IMMEDIATE takes the write lock first, so a
 * read-check-write transaction (a compare-and-set, a version allocation, a pin check) is serial
 * against every other writer. The lock is awaited by polling, not by SQLite's busy handler, which
 * would block the whole process: another connection in this process could not finish the
 * transaction that holds it.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  private readonly database: SqliteDatabase;

  constructor(private readonly sqlite: BetterSqlite3.Database) {
    const database = withStatementCache(sqlite);
    super({ database });
    this.database = database;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.sqlite, this.database);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  /**
   * The statements every transaction runs, prepared once: `pragma()` and `exec()` compile their SQL on every call,
   * and the engine begins a transaction per write (issue 23, item 8: compiling them was a visible part of a job's CPU).
   */
  private readonly statements: {
    noWait: BetterSqlite3.Statement;
    wait: BetterSqlite3.Statement;
    begin: BetterSqlite3.Statement;
  };

  constructor(sqlite: BetterSqlite3.Database, database: SqliteDatabase) {
    super({ database });
    this.statements = {
      noWait: sqlite.prepare('PRAGMA busy_timeout = 0'),
      wait: sqlite.prepare(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`),
      begin: sqlite.prepare('BEGIN IMMEDIATE'),
    };
  }

  override async beginTransaction(): Promise<void> {
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    const { noWait, wait: restore, begin } = this.statements;
    noWait.get();
    try {
      for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
        try {
          begin.run();
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } finally {
      restore.get();
    }
  }
}

/**
 * A transaction committed with `synchronous=NORMAL`: in WAL mode its commit is not fsynced (the next
 * checkpoint or FULL commit syncs it). It survives the server process being killed, not a power
 * loss. The setting is per connection and cannot change inside a transaction, so it is set and
 * reset around it while this code holds the connection: no other query can run in between. The two
 * PRAGMAs are prepared once and run on the connection directly (Kysely would compile them on every
 * transaction, and the engine runs one per write).
 */
function normalSyncTransaction(sqlite: BetterSqlite3.Database) {
  const normal = sqlite.prepare('PRAGMA synchronous = NORMAL');
  const full = sqlite.prepare('PRAGMA synchronous = FULL');
  return <T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
    db.connection().execute(async (connection) => {
      normal.run();
      try {
        return await connection.transaction().execute((trx) => fn(trx));
      } finally {
        full.run();
      }
    });
}

type TransactionRunner = <T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;

/**
 * A durable transaction whose fsync does not block the event loop. With `synchronous=FULL` SQLite fsyncs the WAL
 * inside COMMIT, on the thread that runs it: the server's only JavaScript thread, which answers the API too. With
 * many tasks started at once (an ActivateWorkflow's commit each) those fsyncs were most of a GetTool's wait
 * (BENCHMARKS.md, issue 23, item 8). Here the transaction commits with `synchronous=NORMAL` (its WAL frames written,
 * not synced) and the promise settles only after an fdatasync of the WAL file on libuv's thread pool: the same
 * guarantee to the caller (nothing is answered before it is on disk), and commits that come while one sync runs
 * share the next. A checkpoint copies WAL frames into the database only after syncing the WAL (SQLite does this in
 * NORMAL mode too), so frames a later writer overwrites were on disk before.
 */
function walSyncedTransaction(relaxed: TransactionRunner, walFile: string): { run: TransactionRunner; close(): Promise<void> } {
  let wal: Promise<FileHandle> | undefined;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const syncOnce = async () => {
    // The WAL exists once the first transaction has committed; it is kept open (SQLite keeps the file while this
    // connection is open, and restarts it in place after a checkpoint).
    wal ??= open(walFile, 'r');
    const handle = wal;
    try {
      await (await handle).datasync();
    } catch (error) {
      wal = undefined;
      void handle.then((h) => h.close()).catch(() => undefined);
      throw error;
    }
  };
  const sync = (): Promise<void> => {
    if (!running) {
      running = syncOnce().finally(() => (running = undefined));
      return running;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return sync();
      });
    return next;
  };
  return {
    run: async (db, fn) => {
      const result = await relaxed(db, fn);
      await sync();
      return result;
    },
    async close() {
      await next?.catch(() => undefined);
      await running?.catch(() => undefined);
      const handle = wal;
      wal = undefined;
      await handle?.then((h) => h.close()).catch(() => undefined);
    },
  };
}

/**
 * Kysely's SQLite adapter takes no migration lock (it assumes one connection), so two processes
 * opening a new database at once would both apply migrations. Serialise them with an exclusive
 * transaction on a small lock database beside it; the lock goes with the process if it dies.
 */
async function withMigrationLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  if (file === ':memory:') return fn();
  const lock = new BetterSqlite3(`${file}.migrate-lock`, { timeout: 0 });
  try {
    // Poll rather than let SQLite wait: its busy handler would block this whole process.
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        lock.exec('BEGIN EXCLUSIVE');
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    try {
      return await fn();
    } finally {
      lock.exec('COMMIT');
    }
  } finally {
    lock.close();
  }
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
        statement = sqlite.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
