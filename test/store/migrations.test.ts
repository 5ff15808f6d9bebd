import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/sqlite.js';

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
    (await openSqliteStore(file)).close();
    const raw = new BetterSqlite3(file);
    raw.prepare('insert into gdflow_migrations (name, timestamp) values (?, ?)').run('9999_from_the_future', new Date().toISOString());
    raw.close();
    await assert.rejects(openSqliteStore(file), /9999_from_the_future|corrupted migrations/);
  });
});
