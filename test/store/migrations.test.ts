import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { newId } from '../../src/ids.js';
import { MIGRATIONS, migrationProvider } from '../../src/store/migrations/index.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store, TaskRange } from '../../src/store/store.js';
import { skipWithout } from '../helpers/components.js';
import { postgresUnavailable, startPostgres } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'gdflow-migrate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The migration of the filtered task lists' indexes, and the one before it (the schema an older gdflow left). */
const FILTERS = '0008_task_list_filters';
const BEFORE_FILTERS = Object.keys(MIGRATIONS).sort()[Object.keys(MIGRATIONS).sort().indexOf(FILTERS) - 1]!;

/** A database's schema at `migration` (as an older gdflow left it), by the same migrator the store uses. */
async function migrateTo(db: Kysely<unknown>, migration: string): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableName: 'gdflow_migrations', migrationLockTableName: 'gdflow_migrations_lock' });
  const { error } = migration === 'down' ? await migrator.migrateDown() : await migrator.migrateTo(migration);
  if (error) throw error instanceof Error ? error : new Error(`migrating to ${migration} failed`, { cause: error });
}

/**
 * Tasks written by gdflow before 0008, in a project of their own: succeeded ones, a failed one, a queued one; and
 * one being deleted, which no list shows.
 */
async function oldTasks(db: Kysely<any>): Promise<string> {
  const accountId = newId();
  const projectId = newId();
  await db.insertInto('accounts').values({ id: accountId, name: 'older', created_at: 1 }).execute();
  await db.insertInto('projects').values({ id: projectId, account_id: accountId, name: 'default', created_at: 1 }).execute();
  const made: Array<[string, string, number]> = [
    ['align_s1', 'succeeded', 0],
    ['align_s2', 'failed', 0],
    ['qc_s1', 'succeeded', 0],
    ['qc_s2', 'queued', 0],
    ['align_gone', 'failed', 1],
  ];
  for (const [i, [name, status, deleting]] of made.entries()) {
    await db
      .insertInto('tasks')
      .values({
        id: newId(),
        project_id: projectId,
        name,
        workflow_id: newId(),
        workflow_name: 'wf',
        workflow_version: 1,
        user_name: 'u',
        status,
        reason: '',
        parameters: '{}',
        plan: '{}',
        schedule_at: null,
        stop_requested: 0,
        delete_requested: deleting,
        created_at: 1_700_000_000 + i,
        modified_at: 1_700_000_000 + i,
      })
      .execute();
  }
  return projectId;
}

/** What the filtered lists find in oldTasks' project, through a store opened on the migrated database. */
async function listedAfterMigrating(store: Store, projectId: string) {
  const names = async (range: Omit<TaskRange, 'limit'>) => (await store.listTasks(projectId, { limit: 10, ...range })).tasks.map((t) => t.name);
  assert.deepEqual(await names({ statuses: ['failed'] }), ['align_s2']);
  assert.deepEqual(await names({ statuses: ['succeeded', 'queued'] }), ['qc_s2', 'qc_s1', 'align_s1']);
  assert.deepEqual(await names({ nameContains: 'ALIGN' }), ['align_s2', 'align_s1']);
  assert.deepEqual(await names({ nameContains: 's2', statuses: ['queued'] }), ['qc_s2']);
}

describe('migrations', () => {
  it('are safe to run twice and from two openers at once', async () => {
    const file = join(dir, 'twice.db');
    const [a, b] = await Promise.all([openSqliteStore(file), openSqliteStore(file)]);
    await a.createAccount('first');
    assert.ok(await b.getAccount('first'));
    await a.close();
    await b.close();
    const again = await openSqliteStore(file);
    assert.ok(await again.getAccount('first'), 'data survives reopening');
    await again.close();
  });

  it('refuse to run old code on a newer schema', async () => {
    const file = join(dir, 'newer.db');
    await (await openSqliteStore(file)).close();
    const raw = new BetterSqlite3(file);
    raw.prepare('insert into gdflow_migrations (name, timestamp) values (?, ?)').run('9999_from_the_future', new Date().toISOString());
    raw.close();
    await assert.rejects(openSqliteStore(file), /9999_from_the_future|corrupted migrations/);
  });
});

describe('migration 0008: indexes for filtered task lists (SQLite)', () => {
  it('indexes the tasks an older gdflow wrote, and the filtered pages read those indexes alone', async () => {
    const file = join(dir, 'filters.db');
    const raw = new BetterSqlite3(file);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
    await migrateTo(db, BEFORE_FILTERS);
    const projectId = await oldTasks(db);
    await db.destroy();

    const store = await openSqliteStore(file);
    try {
      await listedAfterMigrating(store, projectId);
    } finally {
      await store.close();
    }
    const check = new BetterSqlite3(file);
    try {
      const indexes = check.prepare("select name from sqlite_master where type = 'index' and tbl_name = 'tasks' order by name").pluck().all();
      assert.ok(indexes.includes('tasks_project_status') && indexes.includes('tasks_project_created_name'), String(indexes));
      // EXPLAIN QUERY PLAN of the statements listTasks sends: every filtered page and count is a search of a covering
      // index (never a scan of the table, never a sort of its rows).
      const plan = (query: string, ...values: unknown[]) =>
        check
          .prepare(`explain query plan ${query}`)
          .all(projectId, 0, ...values)
          .map((r) => (r as { detail: string }).detail)
          .join('; ');
      const page = `select id, created_at from tasks where project_id = ? and delete_requested = ?`;
      const newest = `order by created_at desc, id desc limit 11`;
      const count = `select count(*) from tasks where project_id = ? and delete_requested = ?`;
      const byName = `and name like ? escape '\\'`;
      const byState = /^SEARCH tasks USING COVERING INDEX tasks_project_status \(project_id=\? AND status=\?\)$/;
      assert.match(plan(`${page} and status = ? ${newest}`, 'failed'), byState);
      assert.match(plan(`${count} and status in (?, ?)`, 'failed', 'queued'), /^SEARCH tasks USING COVERING INDEX tasks_project_status/);
      assert.match(plan(`${page} ${byName} ${newest}`, '%align%'), /^SEARCH tasks USING COVERING INDEX tasks_project_created_name \(project_id=\?\)$/);
      assert.match(plan(`${page} ${byName} and status = ? ${newest}`, '%align%', 'failed'), /^SEARCH tasks USING COVERING INDEX tasks_project_status/);
      // Unfiltered pages keep the narrow index of 0003.
      assert.match(plan(`${page} ${newest}`), /^SEARCH tasks USING COVERING INDEX tasks_project_created_id/);
    } finally {
      check.close();
    }

    // Down and up again.
    const again = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
    // Down to the migration before 0008 (later ones, such as 0009, go first), then up again.
    await migrateTo(again, BEFORE_FILTERS);
    const indexes = sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'tasks'`;
    const left = (await indexes.execute(again)).rows.map((r) => r.name);
    assert.ok(!left.includes('tasks_project_status') && !left.includes('tasks_project_created_name'), String(left));
    await again.destroy();
    const reopened = await openSqliteStore(file);
    await listedAfterMigrating(reopened, projectId);
    await reopened.close();
  });
});

describe('migrations on PostgreSQL', { skip: skipWithout(postgresUnavailable()) }, () => {
  it('0008 indexes the tasks an older gdflow wrote: by state, and their names by trigrams (pg_trgm)', async () => {
    const url = await (await startPostgres()).createDatabase();
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }) });
    try {
      await migrateTo(db, BEFORE_FILTERS);
      const projectId = await oldTasks(db);
      const accountId = sql`(select account_id from projects where id = ${projectId})`;
      await db.insertInto('projects').values({ id: newId(), account_id: accountId, name: 'bulk', created_at: 1 }).execute();
      const store = await openPostgresStore(url);
      try {
        await listedAfterMigrating(store, projectId);
      } finally {
        await store.close();
      }
      const indexes = (await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'tasks'`.execute(db)).rows.map((r) => r.indexname);
      assert.ok(indexes.includes('tasks_project_status') && indexes.includes('tasks_name_trigrams'), String(indexes));
      // EXPLAIN of a name page and a state page over 3,000 tasks of another project, once VACUUM has passed (it moves
      // GIN's pending entries into the index) and the planner has their statistics: a selective text is looked up by
      // its trigrams, a rare state's page is a range of its index.
      const bulk = (await sql<{ id: string }>`select id from projects where id <> ${projectId} limit 1`.execute(db)).rows[0]?.id ?? projectId;
      await sql`insert into tasks (id, project_id, name, workflow_id, workflow_name, workflow_version, user_name, status, reason, parameters, plan,
          stop_requested, delete_requested, created_at, modified_at)
        select lpad(to_hex(i), 24, '0'), ${bulk}, 'bulk_' || lpad(i::text, 5, '0'), 'w', 'wf', 1, 'u', case when i % 100 = 0 then 'failed' else 'succeeded' end,
          '', '{}', '{}', 0, 0, 1700000000 + i, 1700000000 + i
        from generate_series(1, 3000) i`.execute(db);
      await sql`vacuum analyze tasks`.execute(db);
      const plan = async (query: ReturnType<typeof sql>) =>
        (await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(db)).rows.map((r) => r['QUERY PLAN']).join('\n');
      const page = (filter: ReturnType<typeof sql>) =>
        sql`select id, created_at from tasks where project_id = ${bulk} and delete_requested = 0 and ${filter} order by created_at desc, id desc limit 101`;
      assert.match(await plan(page(sql`name ilike ${'%k\\_01234%'} escape '\\'`)), /Bitmap Index Scan on tasks_name_trigrams/);
      assert.match(await plan(page(sql`status = ${'failed'}`)), /Index (Only )?Scan Backward using tasks_project_status/);

      await migrateTo(db, BEFORE_FILTERS);
      const left = (await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'tasks'`.execute(db)).rows.map((r) => r.indexname);
      assert.ok(!left.includes('tasks_project_status') && !left.includes('tasks_name_trigrams'), String(left));
      const reopened = await openPostgresStore(url);
      await listedAfterMigrating(reopened, projectId);
      await reopened.close();
    } finally {
      await db.destroy();
    }
  });

  it('0008 says what to do when the role may not create pg_trgm, and changes nothing', async () => {
    const cluster = await startPostgres();
    const url = await cluster.createDatabase();
    const database = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // A role that owns the schema (it may create tables) but not the database (it may not create extensions).
    const role = `limited_${process.pid}`;
    await admin.query(`create role ${role} login`);
    await admin.query(`grant connect on database "${database}" to ${role}`);
    await admin.query(`alter schema public owner to ${role}`);
    const limited = new URL(url);
    limited.username = role;
    // The role's database as an older gdflow left it.
    const older = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: limited.toString(), max: 1 }) }) });
    await migrateTo(older, BEFORE_FILTERS);
    await older.destroy();
    try {
      await assert.rejects(openPostgresStore(limited.toString()), (error: Error) => {
        assert.match(error.message, /migration 0008_task_list_filters failed: gdflow needs PostgreSQL's pg_trgm extension/);
        assert.match(error.message, /CREATE EXTENSION pg_trgm;/);
        return true;
      });
      const applied = (await admin.query<{ name: string }>('select name from gdflow_migrations order by name')).rows.map((r) => r.name);
      assert.deepEqual(
        applied,
        Object.keys(MIGRATIONS)
          .filter((name) => name < FILTERS)
          .sort(),
      );
      // Once the owner has created it, the role's gdflow starts.
      await admin.query('create extension pg_trgm');
      const store = await openPostgresStore(limited.toString());
      await store.close();
    } finally {
      await admin.end();
    }
  });

  it('are applied once when several servers open a new database at once', async () => {
    const url = await (await startPostgres()).createDatabase();
    // Kysely's Migrator holds a PostgreSQL advisory lock while it migrates: the others wait, then find nothing to do.
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
    try {
      await stores[0]!.createAccount('first');
      for (const store of stores) assert.ok(await store.getAccount('first'));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ name: string }>('select name from gdflow_migrations order by name');
      await client.end();
      assert.deepEqual(
        rows.map((r) => r.name),
        Object.keys(MIGRATIONS).sort(),
      );
    } finally {
      for (const store of stores) await store.close();
    }
    const again = await openPostgresStore(url);
    assert.ok(await again.getAccount('first'), 'data survives reopening');
    await again.close();
  });

  it('refuse to run old code on a newer schema', async () => {
    const url = await (await startPostgres()).createDatabase();
    await (await openPostgresStore(url)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('insert into gdflow_migrations (name, timestamp) values ($1, $2)', ['9999_from_the_future', new Date().toISOString()]);
    await client.end();
    await assert.rejects(openPostgresStore(url), /9999_from_the_future|corrupted migrations/);
  });

  it('say which server could not be reached', async () => {
    const cluster = await startPostgres();
    // Most likely nothing listens there; whatever does (another test's cluster, which has no user
    // gdflow and no database nowhere), the first query fails and the message must say where.
    const url = `postgres://gdflow:secret@127.0.0.1:${cluster.port === 65535 ? 1 : cluster.port + 1}/nowhere`;
    await assert.rejects(openPostgresStore(url), (error: Error) => {
      assert.match(error.message, /cannot connect to PostgreSQL at postgres:\/\/gdflow:\*\*\*@127\.0\.0\.1:\d+\/nowhere/);
      assert.doesNotMatch(error.message, /secret/);
      return true;
    });
  });
});
