import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { skipWithout } from '../helpers/components.js';
import { postgresUnavailable, startPostgres } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'gdflow-migrate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

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

describe('migrations on PostgreSQL', { skip: skipWithout(postgresUnavailable()) }, () => {
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
      assert.deepEqual(rows.map((r) => r.name), Object.keys(MIGRATIONS).sort());
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
