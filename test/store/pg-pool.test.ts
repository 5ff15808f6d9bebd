/**
 * The store's PostgreSQL pool when a connection breaks while checked out (between two queries of a transaction):
 * PostgreSQL stopped or an administrator's pg_terminate_backend. Seen in a test run: pg's 'error' event on such a
 * connection had no listener, which ends the process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openPool } from '../../src/store/postgres.js';
import { skipWithout } from '../helpers/components.js';
import { postgresUnavailable, startPostgres, type PostgresCluster } from '../helpers/postgres.js';

describe('the PostgreSQL pool', { skip: skipWithout(postgresUnavailable()) }, () => {
  let cluster: PostgresCluster;
  let url: string;
  before(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
  });
  after(async () => cluster.stop());

  it('lives on when a checked-out connection is terminated, fails only that connection, and serves the next query', async () => {
    const pool = openPool(url, 2);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      // 'end' follows the 'error' event; listening to it leaves the error without a listener of the test's own.
      const ended = new Promise((resolve) => client.once('end', resolve));
      await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
      await ended;
      await assert.rejects(client.query('select 1'));
      client.release();
      assert.deepEqual((await pool.query<{ one: number }>('select 1 as one')).rows, [{ one: 1 }]);
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});
