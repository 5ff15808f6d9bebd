import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from '../../src/client/client.js';
import { GdApiError } from '../../src/client/errors.js';
import { skipWithout } from '../helpers/components.js';
import { postgresUnavailable, startPostgres } from '../helpers/postgres.js';
import { startServerProcess, waitForExit, type ServerChild } from '../helpers/process.js';
import { cli } from './support.js';

/**
 * `--database` end to end: `gdflow admin` and two `gdflow serve` processes (as two replicas) on one
 * database, given by flag, by GDFLOW_DATABASE and by the config file; SQLite by `sqlite:<file>`, and
 * PostgreSQL by URL.
 */
const dir = mkdtempSync(join(tmpdir(), 'gdflow-cli-database-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const backends = [
  { name: 'sqlite', skip: undefined, database: () => Promise.resolve(`sqlite:${join(dir, 'shared.db')}`) },
  { name: 'postgres', skip: skipWithout(postgresUnavailable()), database: async () => (await startPostgres()).createDatabase() },
];

/**
 * Call until `check` passes; it fails when a call begun after `ms` still fails (the other server's cache notices
 * within 1 s, docs/api.md). Judged by when a call began, not by when its answer came: on a loaded machine a read
 * begun in time may answer after the bound, and only a read begun after it must see the change.
 */
async function eventually(check: () => Promise<void>, ms = 1000): Promise<number> {
  const start = Date.now();
  for (;;) {
    const begun = Date.now() - start;
    try {
      await check();
      return begun;
    } catch (error) {
      if (begun > ms) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

for (const backend of backends) {
  describe(`gdflow --database: ${backend.name}`, { skip: backend.skip }, () => {
    it('serves two servers and the admin commands from one database', { timeout: 120_000 }, async () => {
      const url = await backend.database();
      // A new database: the first admin command makes the store (--create), before any server has.
      const created = await cli(['admin', 'create-account', 'alice', '--create', '--json'], { env: { GDFLOW_DATABASE: url } });
      assert.equal(created.status, 0, created.stderr);
      const { access_key_id: keyId, access_key_secret: secret } = created.json() as { access_key_id: string; access_key_secret: string };

      const configFile = join(dir, `${backend.name}.yml`);
      writeFileSync(configFile, `database: '${url}'\n`);
      const servers: ServerChild[] = [];
      try {
        servers.push(await startServerProcess(join(dir, `${backend.name}-a`), ['--database', url, '--executor', 'host']));
        servers.push(await startServerProcess(join(dir, `${backend.name}-b`), ['--config', configFile, '--executor', 'host']));
        const [a, b] = servers.map((s) => new Client({ endpoint: s.url, accessKeyId: keyId, accessKeySecret: secret, retries: 0 })) as [Client, Client];

        assert.equal((await b.whoami()).account_name, 'alice');
        await a.createTool({ tool_name: 'shared' });
        await b.createTool({ tool_name: 'shared' });
        // B read (and cached) both versions; a third made through A reaches B's answers too.
        assert.equal((await b.getTool('shared')).tools.length, 2);
        await a.createTool({ tool_name: 'shared' });
        await eventually(async () => assert.equal((await b.getTool('shared')).tools.length, 3));

        // A key revoked by an admin command is refused by both servers.
        const revoked = await cli(['admin', 'revoke-key', keyId, '--database', url]);
        assert.equal(revoked.status, 0, revoked.stderr);
        // (whoami is remembered by the client: ask for something else.)
        for (const client of [a, b])
          await eventually(async () =>
            assert.rejects(
              client.getTool('shared'),
              (e: unknown) => e instanceof GdApiError && e.errorCode === 'InvalidAccessKeyId' && /revoked/.test(e.errorMessage),
            ),
          );
        const listed = await cli(['admin', 'list-accounts', '--json', '--config', configFile]);
        assert.equal(listed.status, 0, listed.stderr);
        const alice = (listed.json() as Array<{ account_name: string; keys: Array<{ access_key_id: string; status: string }> }>).find(
          (x) => x.account_name === 'alice',
        )!;
        assert.deepEqual(alice.keys, [{ access_key_id: keyId, user_name: 'alice', status: 'revoked' }]);
      } finally {
        for (const server of servers) {
          server.child.kill('SIGTERM');
          await waitForExit(server.child);
        }
      }
    });
  });
}

describe('gdflow --database: an unsupported URL', () => {
  it('is a configuration error (exit code 2) for serve and admin alike', async () => {
    for (const args of [
      ['serve', '--port', '0', '--data-dir', join(dir, 'never'), '--database', 'mysql://root@127.0.0.1/gdflow'],
      ['admin', 'list-accounts', '--data-dir', join(dir, 'never'), '--database', 'mysql://root@127.0.0.1/gdflow'],
    ]) {
      const result = await cli(args);
      assert.equal(result.status, 2, `${args[0]}: ${result.stderr}`);
      assert.match(result.stderr, /'mysql:' databases are not supported/);
    }
    // Not a file name either, nor a URL pg could use: refused before anything is opened.
    for (const [url, problem] of [
      ['mysql:127.0.0.1/gdflow', /'mysql:' databases are not supported/],
      ['postgres://gdflow:secret@127.0.0.1:port/gdflow', /not a valid URL/],
      ['sqlite://', /needs a file name/],
    ] as const) {
      const result = await cli(['serve', '--port', '0', '--data-dir', join(dir, 'never'), '--database', url]);
      assert.equal(result.status, 2, `${url}: ${result.stderr}`);
      assert.match(result.stderr, problem);
      assert.doesNotMatch(result.stderr, /secret/, 'the password is not repeated');
    }
    const env = await cli(['admin', 'list-accounts', '--data-dir', join(dir, 'never')], { env: { GDFLOW_DATABASE: 'redis://127.0.0.1' } });
    assert.equal(env.status, 2, env.stderr);
    assert.match(env.stderr, /GDFLOW_DATABASE|database/);
  });
});
