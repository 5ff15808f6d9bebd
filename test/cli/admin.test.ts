import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { skipWithout } from '../helpers/components.js';
import { postgresUnavailable, startPostgres } from '../helpers/postgres.js';
import { cli } from './support.js';

/**
 * `gdflow admin` (the built CLI) never makes a store by accident: it says on stderr which store it opens, and a
 * place without one (a wrong directory, a database of something else) is refused unless `admin init` or --create
 * asks for a new one.
 */
const dir = mkdtempSync(join(tmpdir(), 'gdflow-cli-admin-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('gdflow admin: which store', () => {
  it('refuses a data directory without a store, says where it looked, and creates nothing', async () => {
    const dataDir = join(dir, 'wrong-dir');
    const result = await cli(['admin', 'create-account', 'alice', '--data-dir', dataDir, '--json']);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stdout, '', 'no key is printed');
    assert.match(result.stderr, new RegExp(`SQLite store ${join(dataDir, 'gdflow.db')}\\n`));
    assert.match(result.stderr, /there is no gdflow store at .*from --data-dir\)/);
    assert.match(result.stderr, /gdflow admin init/);
    assert.match(result.stderr, /--create/);
    assert.equal(existsSync(dataDir), false, 'no data directory was made');

    // The default data directory is ./gdflow-data of the directory it runs in; GDFLOW_DATA_DIR moves it.
    const cwd = join(dir, 'elsewhere');
    mkdirSync(cwd);
    const byDefault = await cli(['admin', 'list-accounts'], { cwd });
    assert.equal(byDefault.status, 2, byDefault.stderr);
    assert.match(
      byDefault.stderr,
      new RegExp(`no gdflow store at ${join(cwd, 'gdflow-data', 'gdflow.db')} .*the default: \\./gdflow-data in the current directory`),
    );
    const byEnv = await cli(['admin', 'list-accounts'], { cwd, env: { GDFLOW_DATA_DIR: join(dir, 'from-env') } });
    assert.equal(byEnv.status, 2, byEnv.stderr);
    assert.match(byEnv.stderr, /from GDFLOW_DATA_DIR\)/);
    assert.deepEqual(readdirSync(cwd), [], 'nothing was created where it ran');

    // An empty file is no store either (a database that is not gdflow's).
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    const onEmpty = await cli(['admin', 'list-accounts', '--database', `sqlite:${empty}`]);
    assert.equal(onEmpty.status, 2, onEmpty.stderr);
    assert.match(onEmpty.stderr, /there is no gdflow store at .*empty\.db/);
  });

  it('admin init creates the store once; the other commands then use it, with --json output clean', async () => {
    const dataDir = join(dir, 'server-data');
    const database = join(dataDir, 'gdflow.db');
    const init = await cli(['admin', 'init', '--data-dir', dataDir, '--json']);
    assert.equal(init.status, 0, init.stderr);
    assert.deepEqual(init.json(), { store: 'sqlite', location: database, created: true });
    assert.equal(init.stderr, `gdflow admin: SQLite store ${database}\n`);
    const again = await cli(['admin', 'init', '--data-dir', dataDir]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /a gdflow store is already there: SQLite .*\(schema up to date\)/);

    const created = await cli(['admin', 'create-account', 'alice', '--data-dir', dataDir, '--json']);
    assert.equal(created.status, 0, created.stderr);
    assert.equal(created.json().account_name, 'alice');
    assert.equal(created.stderr, `gdflow admin: SQLite store ${database}\n`);
    // The config file's dataDir names it too.
    const configFile = join(dir, 'server.yml');
    writeFileSync(configFile, `dataDir: ${dataDir}\n`);
    const listed = await cli(['admin', 'list-accounts', '--config', configFile, '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual((listed.json() as Array<{ account_name: string }>).map((a) => a.account_name).sort(), ['alice', 'public']);
  });

  it('--create makes the store where there is none', async () => {
    const dataDir = join(dir, 'asked-for');
    const result = await cli(['admin', 'create-account', 'bob', '--data-dir', dataDir, '--create', '--json']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.json().account_name, 'bob');
    assert.ok(existsSync(join(dataDir, 'gdflow.db')));
  });
});

describe('gdflow admin: which store, on PostgreSQL', { skip: skipWithout(postgresUnavailable()) }, () => {
  it('a database without gdflow tables is no store; the password is never said', async () => {
    const url = await (await startPostgres()).createDatabase();
    // The test cluster trusts local connections, so a password in the URL is accepted and ignored.
    const withPassword = url.replace('postgres://postgres@', 'postgres://postgres:sekrit@');
    const where = withPassword.replace(':sekrit', '');
    const refused = await cli(['admin', 'list-accounts', '--json'], { env: { GDFLOW_DATABASE: withPassword } });
    assert.equal(refused.status, 2, refused.stderr);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, new RegExp(`PostgreSQL store ${where.replace(/[.]/g, '\\.')}\\n`));
    assert.match(refused.stderr, /holds no gdflow store \(no gdflow tables\).*gdflow admin init.*--create/);
    assert.doesNotMatch(refused.stderr, /sekrit/);

    const init = await cli(['admin', 'init', '--database', withPassword, '--json']);
    assert.equal(init.status, 0, init.stderr);
    assert.deepEqual(init.json(), { store: 'postgres', location: where, created: true });
    const created = await cli(['admin', 'create-account', 'carol', '--database', withPassword, '--json']);
    assert.equal(created.status, 0, created.stderr);
    assert.equal(created.json().account_name, 'carol');
    assert.doesNotMatch(created.stderr + init.stderr, /sekrit/);
  });
});
