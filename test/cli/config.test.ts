import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { cli } from './support.js';

let server: TestServer;
let alice: TestAccount;
let dir: string;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
  dir = mkdtempSync(join(tmpdir(), 'gdflow-cli-config-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('gdflow config', () => {
  it('writes the profile to a file readable only by its owner, in a private directory it creates', async () => {
    const file = join(dir, 'fresh', 'sub', 'config.yml');
    const env = { GDFLOW_CONFIG_FILE: file };
    const set = await cli(['config', 'set', '--endpoint', server.url, '--access-key-id', alice.accessKeyId, '--access-key-secret', alice.accessKeySecret], {
      env,
    });
    assert.equal(set.status, 0, set.stderr);
    assert.equal(mode(file), 0o600);
    assert.equal(mode(join(dir, 'fresh', 'sub')), 0o700);
    const doc = parse(readFileSync(file, 'utf8'));
    assert.equal(doc.default_profile, 'default');
    assert.deepEqual(doc.profiles.default, { endpoint: server.url, access_key_id: alice.accessKeyId, access_key_secret: alice.accessKeySecret });

    // It works: the key is accepted and names its account.
    const check = await cli(['config', 'check', '--json'], { env });
    assert.equal(check.status, 0, check.stderr);
    assert.deepEqual([check.json().account_name, check.json().user_name, check.json().project], [alice.name, alice.name, 'default']);

    // Later writes keep the mode, even under a permissive umask.
    const again = await cli(['config', 'set', '--project', 'other'], { env: { ...env } });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(mode(file), 0o600);
    assert.equal(parse(readFileSync(file, 'utf8')).profiles.default.project, 'other');
  });

  it('refuses a config file that group or others can read, with exit code 2 and how to fix it', async () => {
    const file = join(dir, 'open', 'config.yml');
    const env = { GDFLOW_CONFIG_FILE: file };
    assert.equal(
      (await cli(['config', 'set', '--endpoint', server.url, '--access-key-id', alice.accessKeyId, '--access-key-secret', alice.accessKeySecret], { env }))
        .status,
      0,
    );
    for (const bad of [0o644, 0o640, 0o604, 0o660]) {
      chmodSync(file, bad);
      const result = await cli(['tool', 'ls'], { env });
      assert.equal(result.status, 2, `mode ${bad.toString(8)}: ${result.stderr}`);
      assert.match(result.stderr, /accessible by group or others/);
      assert.match(result.stderr, new RegExp(`chmod 600 ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
      // Writing is refused too: the secret must not stay exposed behind a successful command.
      assert.equal((await cli(['config', 'set', '--project', 'x'], { env })).status, 2);
    }
    chmodSync(file, 0o600);
    assert.equal((await cli(['tool', 'ls'], { env })).status, 0);
  });

  it('keeps profiles; --profile and GDFLOW_PROFILE choose one; use changes the default', async () => {
    const file = join(dir, 'profiles.yml');
    const env = { GDFLOW_CONFIG_FILE: file };
    assert.equal(
      (await cli(['config', 'set', '--endpoint', server.url, '--access-key-id', alice.accessKeyId, '--access-key-secret', alice.accessKeySecret], { env }))
        .status,
      0,
    );
    assert.equal(
      (
        await cli(
          ['config', 'set', '--profile', 'broken', '--endpoint', server.url, '--access-key-id', alice.accessKeyId, '--access-key-secret', 'wrong-secret'],
          { env },
        )
      ).status,
      0,
    );

    const list = await cli(['config', 'ls', '--json'], { env });
    assert.equal(list.status, 0);
    assert.equal(list.json().default_profile, 'default');
    assert.deepEqual(
      list
        .json()
        .profiles.map((p: any) => p.profile)
        .sort(),
      ['broken', 'default'],
    );
    assert.match((await cli(['config', 'ls'], { env })).stdout, /default \*/);

    assert.equal((await cli(['tool', 'ls'], { env })).status, 0);
    // A wrong secret is refused by the server: the operation failed (exit 1), with the error code.
    const refused = await cli(['tool', 'ls', '--profile', 'broken'], { env });
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /403 SignatureDoesNotMatch|40[13] \w+/);
    assert.match(refused.stderr, /request [0-9a-f]{24}/);
    // It names the command the user ran and what to check, not the string to sign of a request made on the side.
    assert.match(refused.stderr, /refused the credentials of 'gdflow tool ls --profile broken'/);
    assert.match(refused.stderr, /hint: .*access_key_secret/);
    assert.doesNotMatch(refused.stderr, /miscellaneous|string to sign/);
    assert.equal((await cli(['tool', 'ls'], { env: { ...env, GDFLOW_PROFILE: 'broken' } })).status, 1);

    const use = await cli(['config', 'use', 'broken'], { env });
    assert.equal(use.status, 0, use.stderr);
    assert.equal((await cli(['tool', 'ls'], { env })).status, 1);
    assert.equal((await cli(['tool', 'ls', '--profile', 'default'], { env })).status, 0);

    const unknown = await cli(['tool', 'ls', '--profile', 'nosuch'], { env });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /profile 'nosuch' is not in/);
  });

  it('lets the environment override the file, and shows where each setting comes from (secret masked)', async () => {
    const file = join(dir, 'env.yml');
    const env = { GDFLOW_CONFIG_FILE: file };
    assert.equal(
      (await cli(['config', 'set', '--endpoint', 'http://127.0.0.1:1', '--access-key-id', alice.accessKeyId, '--access-key-secret', 'wrong'], { env })).status,
      0,
    );
    const overridden = { ...env, GDFLOW_ENDPOINT: server.url, GDFLOW_ACCESS_KEY_SECRET: alice.accessKeySecret, GDFLOW_PROJECT: 'default' };
    assert.equal((await cli(['tool', 'ls'], { env: overridden })).status, 0);

    const shown = await cli(['config', 'show', '--json'], { env: overridden });
    assert.equal(shown.status, 0);
    const settings = shown.json().settings;
    assert.deepEqual(settings.endpoint, { value: server.url, source: 'GDFLOW_ENDPOINT' });
    assert.deepEqual(settings.access_key_id, { value: alice.accessKeyId, source: 'file' });
    assert.equal(settings.access_key_secret.value, `****${alice.accessKeySecret.slice(-4)}`);
    assert.equal(settings.access_key_secret.source, 'GDFLOW_ACCESS_KEY_SECRET');
    const text = await cli(['config', 'show'], { env: overridden });
    assert.ok(!text.stdout.includes(alice.accessKeySecret), 'the secret is never printed');

    const unset = await cli(['config', 'unset', 'endpoint'], { env });
    assert.equal(unset.status, 0, unset.stderr);
    assert.equal(parse(readFileSync(file, 'utf8')).profiles.default.endpoint, undefined);
    assert.equal((await cli(['config', 'path'], { env })).stdout.trim(), file);
  });

  it('exits 2 when nothing is configured, 3 when the server cannot be reached', async () => {
    const missing = await cli(['task', 'ls'], { env: { GDFLOW_CONFIG_FILE: join(dir, 'none.yml') } });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /no endpoint, access_key_id, access_key_secret configured/);
    assert.ok(!existsSync(join(dir, 'none.yml')), 'reading does not create the file');

    // A port nothing listens on (the retries back off, so keep them short).
    const unreachable = await cli(['task', 'ls'], {
      env: {
        GDFLOW_CONFIG_FILE: join(dir, 'none.yml'),
        GDFLOW_ENDPOINT: 'http://127.0.0.1:9',
        GDFLOW_ACCESS_KEY_ID: 'x',
        GDFLOW_ACCESS_KEY_SECRET: 'y',
        GDFLOW_ACCOUNT: 'someone',
      },
    });
    assert.equal(unreachable.status, 3, unreachable.stderr);
    assert.match(unreachable.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);

    const usage = await cli(['tool', 'get'], { env: { GDFLOW_CONFIG_FILE: join(dir, 'none.yml') } });
    assert.equal(usage.status, 2, 'a missing argument is a usage error');
    const badVersion = await cli(['tool', 'get', 'x', '--version', 'two'], { env: { GDFLOW_CONFIG_FILE: join(dir, 'none.yml') } });
    assert.equal(badVersion.status, 2);
  });

  it('documents the exit codes in every --help', async () => {
    for (const args of [['--help'], ['config', '--help'], ['task', 'wait', '--help'], ['batch', '--help'], ['data', 'put', '--help']]) {
      const help = await cli(args);
      assert.equal(help.status, 0, `${args.join(' ')}: ${help.stderr}`);
      assert.match(
        help.stdout,
        /Exit codes:\n\s+0\s+success\n\s+1\s+the operation failed.*\n\s+2\s+usage.*\n\s+3\s+the server could not be reached/,
        args.join(' '),
      );
    }
  });
});
