/**
 * wdl/runs/ over real HTTP (docs/wdl.md, "gdflow wdl run"): a WDL document run as it is, its imports' texts beside it,
 * followed to its end and its outputs read back; another account cannot read it; and a refusal naming the field for
 * every malformed request (a document in error: its file, line and column).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefused } from '../helpers/raw.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { download, waitForTask } from '../helpers/tasks.js';
import { gdpy, LIB, MAIN } from '../helpers/wdl.js';

describe('wdl/runs/: a WDL document run as it is', () => {
  let server: TestServer;
  let alice: TestAccount;
  let bob: TestAccount;

  before(async () => {
    server = await startTestServer({ cpus: 2, executor: 'host' });
    alice = await server.account();
    bob = await server.account();
  });
  after(async () => server.close());

  const run = (body: Record<string, unknown>) => gdpy(server, alice, 'POST', 'wdl/runs/', body);

  it('runs a document with its imports to its end; its outputs are data-store paths under output_dir', async () => {
    const started = await run({
      source: MAIN,
      source_name: 'hello.wdl',
      files: { 'lib/tasks.wdl': LIB },
      inputs: { 'hello.who': 'runs' },
      output_dir: '/wdl/runs/r1/',
    });
    assert.equal(started.status, 200, started.text);
    const { task_id: taskId } = started.json();
    const running = (await gdpy(server, alice, 'GET', `wdl/runs/${taskId}/`)).json();
    assert.equal(running.task_id, taskId);
    const task = await waitForTask(alice, taskId, { timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const ended = (await gdpy(server, alice, 'GET', `wdl/runs/${taskId}/`)).json();
    assert.deepEqual(ended, { task_id: taskId, status: 'succeeded', outputs: { 'hello.out': `${alice.name}:/wdl/runs/r1/stdout` }, reason: null });
    assert.equal(await download(alice, '/wdl/runs/r1/stdout'), 'hello runs\n');
    // Another account's project has no such run.
    assertRefused(await gdpy(server, bob, 'GET', `wdl/runs/${taskId}/`), 404, 'TaskNotFound', /does not exist/);
  });

  it('refuses a malformed request, naming the field', async () => {
    assertRefused(await run({ output_dir: '/x/' }), 400, 'MalformedRequest', /source/);
    assertRefused(await run({ source: MAIN }), 400, 'MalformedRequest', /output_dir/);
    assertRefused(await run({ source: MAIN, output_dir: '/x/', extra: 1 }), 400, 'MalformedRequest', /extra/);
    assertRefused(await run({ source: MAIN, output_dir: '/x/', files: { 'lib/tasks.wdl': 3 } }), 400, 'MalformedRequest', /files/);
    // Without its import, and with an error in it: the file, line and column.
    assertRefused(
      await run({ source: MAIN, source_name: 'hello.wdl', output_dir: '/x/' }),
      400,
      'MalformedRequest',
      /hello\.wdl:2:1: import 'lib\/tasks\.wdl'/,
    );
    assertRefused(
      await run({ source: MAIN, source_name: 'hello.wdl', files: { 'lib/tasks.wdl': LIB.replace('String who', 'Strin who') }, output_dir: '/x/' }),
      400,
      'MalformedRequest',
      /lib\/tasks\.wdl:\d+:\d+/,
    );
    assertRefused(
      await run({ source: MAIN, files: { 'lib/tasks.wdl': LIB }, inputs: { 'hello.nope': 1 }, output_dir: '/x/' }),
      400,
      'MalformedRequest',
      /inputs\.hello\.nope/,
    );
    assertRefused(
      await run({ source: MAIN, files: { 'lib/tasks.wdl': LIB }, inputs: { 'hello.who': 'x' }, output_dir: 'rel' }),
      400,
      'MalformedRequest',
      /output_dir/,
    );
    assertRefused(await gdpy(server, alice, 'GET', 'wdl/runs/0123456789abcdef01234567/'), 404, 'TaskNotFound', /does not exist/);
  });
});
