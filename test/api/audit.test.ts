import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cli } from '../cli/support.js';
import { rawRequest } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** The audit log over real HTTP: what the API records for writes made and refused, and `gdflow admin audit`. */

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
  bob = await server.account();
});
after(async () => server.close());

/** The admin command's arguments that reach the test server's database. */
const storeArgs = () => ['--data-dir', server.dataDir, ...(server.database ? ['--database', server.database] : [])];

/** A signed request whose error answers are looked at, not thrown. */
async function send(as: TestAccount, method: string, target: string, json?: unknown) {
  const body = json === undefined ? undefined : JSON.stringify(json);
  const response = await rawRequest(server.url, {
    method,
    target,
    ...(body === undefined ? {} : { body, headers: { 'Content-Type': 'application/json' } }),
    sign: { id: as.accessKeyId, secret: as.accessKeySecret },
  });
  return { status: response.status, requestId: String(response.headers['x-gd-requestid']), json: response.json };
}

const entriesOf = async (requestId: string | null) => (await server.services.store.listAudit({ limit: 100_000 })).filter((e) => e.requestId === requestId);

describe('audit log', () => {
  it('records a write with who, what, the request id and the outcome', async () => {
    const response = await alice.api.send('POST', projectPath(alice.name, 'tools/'), { json: { tool_name: 'audited_tool' } });
    assert.equal(response.status, 200);
    const requestId = response.headers.get('x-gd-requestid');
    const [entry, ...more] = await entriesOf(requestId);
    assert.equal(more.length, 0);
    assert.equal(entry!.actorAccount, alice.name);
    assert.equal(entry!.actorKeyId, alice.accessKeyId);
    assert.equal(entry!.account, alice.name);
    assert.equal(entry!.operation, 'CreateTool');
    assert.equal(entry!.target, `${alice.name}/default/audited_tool:1`);
    assert.equal(entry!.outcome, 'ok');
    // Where it came from: the test's own connection (no proxy is trusted, so no X-Forwarded-For could change it).
    assert.equal(entry!.clientAddress, '127.0.0.1');
  });

  it('records a refused write with its error code, in an entry of its own', async () => {
    const invalid = await send(alice, 'PUT', projectPath(alice.name, 'tools/audited_tool/'), { tool_version: 1, configs: { nonsense: true } });
    assert.equal(invalid.status, 400);
    const body = invalid.json() as { error_code: string };
    const [refusal] = await entriesOf(invalid.requestId);
    assert.equal(refusal!.operation, 'PutTool');
    assert.equal(refusal!.outcome, body.error_code);
    assert.ok(refusal!.reason.length > 0);
    assert.equal(refusal!.clientAddress, '127.0.0.1');

    // Writing into another account's project: recorded under both accounts.
    const denied = await send(bob, 'DELETE', `${projectPath(alice.name, 'tools/audited_tool/')}?tool_version=1`);
    assert.equal(denied.status, 403);
    const [attempt] = await entriesOf(denied.requestId);
    assert.equal(attempt!.actorAccount, bob.name);
    assert.equal(attempt!.account, alice.name);
    assert.match(attempt!.target, /^DELETE \/accounts\/.*tool_version=1/);
  });

  it('records data uploads and deletes, and task stops', async () => {
    const upload = await alice.api.send('PUT', `/accounts/${alice.name}/data/audit/x.txt`, {
      body: Buffer.from('hello\n'),
      contentType: 'application/octet-stream',
    });
    assert.equal(upload.status, 200);
    assert.deepEqual(
      (await entriesOf(upload.headers.get('x-gd-requestid'))).map((e) => [e.operation, e.target, e.outcome]),
      [['PutData', `${alice.name}:/audit/x.txt`, 'ok']],
    );
    const removed = await alice.api.send('DELETE', `/accounts/${alice.name}/data/audit/x.txt`);
    assert.equal(removed.status, 200);
    assert.deepEqual(
      (await entriesOf(removed.headers.get('x-gd-requestid'))).map((e) => e.operation),
      ['DeleteData'],
    );
    const stop = await send(alice, 'PUT', projectPath(alice.name, 'tasks/000000000000000000000000/'));
    assert.equal(stop.status, 404);
    assert.deepEqual(
      (await entriesOf(stop.requestId)).map((e) => [e.operation, e.outcome]),
      [['StopTask', 'TaskNotFound']],
    );
  });

  it('is read by gdflow admin audit, which records its own key commands', async () => {
    const created = await cli(['admin', 'create-key', alice.name, '--json', ...storeArgs()]);
    assert.equal(created.status, 0, created.stderr);
    const keyId = created.json().access_key_id as string;
    const missing = await cli(['admin', 'revoke-key', 'GDNOSUCHKEY', ...storeArgs()]);
    assert.equal(missing.status, 1);

    const listed = await cli(['admin', 'audit', '--account', alice.name, '--since', '1h', '--json', ...storeArgs()]);
    assert.equal(listed.status, 0, listed.stderr);
    const entries = listed.json() as Array<Record<string, unknown>>;
    assert.ok(entries.every((e) => e.actor_account === alice.name || e.account === alice.name));
    assert.ok(entries.some((e) => e.operation === 'CreateTool' && e.outcome === 'ok'));
    const key = entries.find((e) => e.operation === 'CreateKey');
    assert.equal(key?.actor_account, null, 'the operator has no account');
    assert.equal(key?.client_address, null, 'nor a client address');
    assert.ok(entries.some((e) => e.operation === 'CreateTool' && e.client_address === '127.0.0.1'));
    assert.match(String(key?.target), new RegExp(keyId));

    const all = await cli(['admin', 'audit', ...storeArgs()]);
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /^TIME\s+OUTCOME\s+OPERATION\s+ACTOR\s+FROM\s+REQUEST/);
    assert.match(all.stdout, /NotFound\s+RevokeKey\s+admin \(\S+\)\s+local\s/);

    const future = await cli(['admin', 'audit', '--since', '2999-01-01T00:00:00Z', '--json', ...storeArgs()]);
    assert.deepEqual(future.json(), []);
    const bad = await cli(['admin', 'audit', '--since', 'yesterday', ...storeArgs()]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--since 'yesterday'/);
  });
});
