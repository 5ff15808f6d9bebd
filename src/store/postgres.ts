/**
 * Opening the store on PostgreSQL: a pg connection pool under Kysely, the shared migrations (the
 * Migrator holds a PostgreSQL advisory lock while it applies them, so servers starting at once take
 * turns), and a watcher that tells the read cache when another process changed what it holds.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { CachedStore } from './cached-store.js';
import { CACHE_GENERATION_CHANNEL, ensureCacheGeneration, readCacheGeneration } from './cache-generation.js';
import { POSTGRES } from './dialect.js';
import { KyselyStore } from './kysely-store.js';
import { queryLog, type QueryObserver } from './query-log.js';
import { PgListener } from './pg-listener.js';
import { PgWorkEvents } from './pg-work-events.js';
import type { WorkEvents } from './store.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';

export interface PostgresStoreOptions extends QueryObserver {
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** How often the cache generation is read, in ms (default 200): the bound when a notification is missed. */
  pollMs?: number;
  /** Whether to LISTEN for cache generation changes (default true); without, only the poll notices them. */
  listen?: boolean;
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database URL';
  }
}

/**
 * A pg pool that survives its connections breaking (PostgreSQL restarted or stopped, an administrator's
 * pg_terminate_backend). pg reports a broken connection as an 'error' event, which ends the process when nobody
 * listens. The pool listens only while a connection sits idle in it; a connection checked out between two
 * queries (inside a transaction, while the code between them runs) has no listener of its own, so each gets one.
 * Its next query fails (the store's caller answers 503) and the pool drops it on release, as it is no longer
 * queryable; the next checkout opens another.
 */
export function openPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'gdflow' });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<CachedStore> {
  const pool = openPool(url, options.maxConnections ?? 10);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...queryLog(options) });
  let watcher: GenerationWatcher;
  let workEvents: WorkEvents;
  // One listening session for the cache generation and for work events (pg-listener.ts).
  const listener = options.listen === false ? undefined : new PgListener(url);
  try {
    try {
      await sql`select 1`.execute(db);
    } catch (error) {
      throw new Error(`cannot connect to PostgreSQL at ${redactedUrl(url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    await migrateToLatest(db);
    await ensureCacheGeneration(db);
    watcher = new GenerationWatcher(db, listener, options.pollMs ?? 200);
    const events = new PgWorkEvents(db, listener);
    await listener?.connect();
    await watcher.start();
    workEvents = events;
  } catch (error) {
    await listener?.stop();
    await db.destroy();
    throw error;
  }
  const store = new KyselyStore(
    db,
    { dialect: 'postgres', rowLocks: POSTGRES.rowLocks },
    {
      relaxedTransaction: asyncCommitTransaction,
      events: workEvents,
      async onClose() {
        watcher.stop();
        await listener?.stop();
        await db.destroy();
      },
    },
  );
  // The watcher's value is a field read, so the cache may look at it on every read.
  return new CachedStore(store, () => watcher.latest, 0);
}

/**
 * A transaction whose commit does not wait for its WAL record to reach the disk: it survives a crash
 * of the server process (and of PostgreSQL itself, which flushes within 3 × wal_writer_delay), not
 * of the machine. SET LOCAL ends with the transaction.
 */
function asyncCommitTransaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx);
    return fn(trx);
  });
}

/**
 * The latest cache generation (cache-generation.ts) this process has seen: heard at once through
 * LISTEN (writers NOTIFY in the transaction that bumps it; the notification arrives on commit), and
 * read every `pollMs` in case a notification was missed (the listening connection broke, or was
 * still being opened). The value only grows, so a poll that read before a notification arrived
 * cannot take it back.
 */
class GenerationWatcher {
  latest = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly listener: PgListener | undefined,
    private readonly pollMs: number,
  ) {
    listener?.on(CACHE_GENERATION_CHANNEL, (payload) => this.see(Number(payload)));
  }

  async start(): Promise<void> {
    this.see(await readCacheGeneration(this.db));
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    // The poll alone must not keep a process alive (an admin command that forgot to close).
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private see(value: number): void {
    if (Number.isFinite(value) && value > this.latest) this.latest = value;
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      this.see(await readCacheGeneration(this.db));
      await this.listener?.reconnectIfNeeded();
    } catch {
      // The database is unreachable for now: requests will say so; the cache keeps its last view.
    } finally {
      this.polling = false;
    }
  }
}
