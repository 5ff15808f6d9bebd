import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transport } from '../../src/client/transport.js';
import { rejectsWith } from '../helpers/assert-api.js';
import { rawRequest } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;
let publisher: TestAccount;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
  bob = await server.account();
  // A key of the public account, to publish a public tool.
  const key = await server.services.accounts.createKey('public');
  publisher = {
    name: 'public',
    accessKeyId: key.id,
    accessKeySecret: key.secret,
    api: new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret }, retries: 0 }),
  };
  await alice.api.send('POST', projectPath(alice.name, 'tools/'), { json: { tool_name: 'alicetool' } });
});
after(async () => server.close());

const target = () => projectPath(alice.name, 'tools/alicetool/');

function expectError(response: { status: number; headers: Record<string, unknown>; json: () => any }, status: number, code: string, part?: string) {
  assert.equal(response.status, status);
  assert.match(String(response.headers['x-gd-requestid']), /^[0-9a-f]{24}$/);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['error_code', 'error_message', 'error_message_chs']);
  assert.equal(body.error_code, code);
  if (part) assert.ok(body.error_message.includes(part), `${body.error_message} should include ${part}`);
  return body;
}

describe('signed requests', () => {
  it('accepts a correctly signed request, with or without the optional x-gd headers', async () => {
    const plain = await rawRequest(server.url, { method: 'GET', target: target(), sign: { id: alice.accessKeyId, secret: alice.accessKeySecret } });
    assert.equal(plain.status, 200);
    const withHeaders = await rawRequest(server.url, {
      method: 'GET',
      target: target(),
      headers: { 'x-gd-apiversion': '1.0', 'X-GD-SignatureMethod': 'hmac-sha1-v1' },
      sign: { id: alice.accessKeyId, secret: alice.accessKeySecret },
    });
    assert.equal(withHeaders.status, 200);
  });

  it('refuses a missing Authorization with 401 MissingAuthorization', async () => {
    expectError(await rawRequest(server.url, { method: 'GET', target: target() }), 401, 'MissingAuthorization');
  });

  it('refuses a malformed Authorization with 401 InvalidAuthorization', async () => {
    const response = await rawRequest(server.url, { method: 'GET', target: target(), headers: { Authorization: 'Basic abc', Date: new Date().toUTCString() } });
    expectError(response, 401, 'InvalidAuthorization', 'GeneDock <access_key_id>:<signature>');
  });

  it('refuses an unknown key and a revoked key with 401 InvalidAccessKeyId', async () => {
    expectError(
      await rawRequest(server.url, { method: 'GET', target: target(), sign: { id: 'GDNOSUCHKEY', secret: 'x' } }),
      401,
      'InvalidAccessKeyId',
      'does not exist',
    );
    const key = await server.services.accounts.createKey(alice.name);
    assert.equal((await rawRequest(server.url, { method: 'GET', target: target(), sign: { id: key.id, secret: key.secret } })).status, 200);
    await server.services.accounts.revokeKey(key.id);
    expectError(
      await rawRequest(server.url, { method: 'GET', target: target(), sign: { id: key.id, secret: key.secret } }),
      401,
      'InvalidAccessKeyId',
      'revoked',
    );
  });

  it('refuses a wrong signature with 401 SignatureDoesNotMatch, showing the string to sign', async () => {
    const response = await rawRequest(server.url, { method: 'GET', target: target(), sign: { id: alice.accessKeyId, secret: 'wrong-secret' } });
    expectError(response, 401, 'SignatureDoesNotMatch', 'GET\\n\\n\\n');
  });

  it('verifies over the raw target: a signature over another query or path does not pass', async () => {
    const date = new Date().toUTCString();
    const { signRequest, authorizationHeader } = await import('../../src/signing/index.js');
    const signed = signRequest(alice.accessKeySecret, { method: 'GET', target: `${target()}?tool_version=1`, headers: { Date: date } });
    const response = await rawRequest(server.url, {
      method: 'GET',
      target: `${target()}?tool_version=2`,
      headers: { Date: date, Authorization: authorizationHeader(alice.accessKeyId, signed) },
    });
    expectError(response, 401, 'SignatureDoesNotMatch');
    // Query items in another order sign the same (they are sorted).
    const ok = signRequest(alice.accessKeySecret, { method: 'GET', target: `${target()}?b=2&tool_version=1`, headers: { Date: date } });
    const reordered = await rawRequest(server.url, {
      method: 'GET',
      target: `${target()}?tool_version=1&b=2`,
      headers: { Date: date, Authorization: authorizationHeader(alice.accessKeyId, ok) },
    });
    assert.equal(reordered.status, 200);
  });

  it('refuses a Date too far in the past or the future, and a missing or garbled Date', async () => {
    const sign = { id: alice.accessKeyId, secret: alice.accessKeySecret };
    const old = new Date(Date.now() - 16 * 60 * 1000).toUTCString();
    const future = new Date(Date.now() + 16 * 60 * 1000).toUTCString();
    expectError(await rawRequest(server.url, { method: 'GET', target: target(), headers: { Date: old }, sign }), 401, 'RequestTimeTooSkewed', 'behind');
    expectError(await rawRequest(server.url, { method: 'GET', target: target(), headers: { Date: future }, sign }), 401, 'RequestTimeTooSkewed', 'ahead of');
    const near = new Date(Date.now() - 10 * 60 * 1000).toUTCString();
    assert.equal((await rawRequest(server.url, { method: 'GET', target: target(), headers: { Date: near }, sign })).status, 200);
    expectError(
      await rawRequest(server.url, { method: 'GET', target: target(), headers: { Date: 'yesterday' }, sign }),
      401,
      'InvalidAuthorization',
      'not an HTTP date',
    );
  });

  it('accepts x-gd-date instead of Date and judges freshness on it', async () => {
    const sign = { id: alice.accessKeyId, secret: alice.accessKeySecret };
    const fresh = await rawRequest(server.url, { method: 'GET', target: target(), headers: { 'x-gd-date': new Date().toUTCString() }, sign });
    assert.equal(fresh.status, 200);
    const stale = await rawRequest(server.url, {
      method: 'GET',
      target: target(),
      headers: { 'x-gd-date': new Date(Date.now() - 3600e3).toUTCString() },
      sign,
    });
    expectError(stale, 401, 'RequestTimeTooSkewed');
  });

  it('checks Content-MD5 against the body when present', async () => {
    const sign = { id: alice.accessKeyId, secret: alice.accessKeySecret };
    const body = JSON.stringify({ tool_name: 'md5tool' });
    const bad = await rawRequest(server.url, {
      method: 'POST',
      target: projectPath(alice.name, 'tools/'),
      headers: { 'Content-Type': 'application/json', 'Content-MD5': '1B2M2Y8AsgTpgAmY7PhCfg==' },
      body,
      sign,
    });
    expectError(bad, 400, 'InvalidDigest');
    const { contentMd5 } = await import('../../src/signing/index.js');
    const good = await rawRequest(server.url, {
      method: 'POST',
      target: projectPath(alice.name, 'tools/'),
      headers: { 'Content-Type': 'application/json', 'Content-MD5': contentMd5(body) },
      body,
      sign,
    });
    assert.equal(good.status, 200);
  });

  it('accepts a doubled leading slash and a missing trailing slash, without redirects', async () => {
    const sign = { id: alice.accessKeyId, secret: alice.accessKeySecret };
    const doubled = await rawRequest(server.url, { method: 'GET', target: `/${target()}`, sign });
    assert.equal(doubled.status, 200);
    const bare = await rawRequest(server.url, { method: 'GET', target: target().replace(/\/$/, ''), sign });
    assert.equal(bare.status, 200);
  });
});

describe('accounts and projects', () => {
  it("refuses an account acting on another account's project with 403 AccessDenied", async () => {
    await rejectsWith(
      bob.api.send('GET', projectPath(alice.name, 'tools/')),
      403,
      'AccessDenied',
      `account '${bob.name}' may not access projects of account '${alice.name}'`,
    );
    await rejectsWith(bob.api.send('POST', projectPath(alice.name, 'tools/'), { json: { tool_name: 'intruder' } }), 403, 'AccessDenied');
    await rejectsWith(bob.api.send('DELETE', projectPath(alice.name, 'tools/alicetool/'), { query: { tool_version: 1 } }), 403, 'AccessDenied');
  });

  it('lets every account read the public account, and only the public account change it', async () => {
    await publisher.api.send('POST', projectPath('public', 'tools/'), { json: { tool_name: 'shared_tool' } });
    const list = await bob.api.json<any>('GET', projectPath('public', 'tools/'));
    const summary = list.items.flat().find((t: any) => t.tool_name === 'shared_tool');
    assert.equal(summary.type, 'public');
    assert.deepEqual(summary.authorized_methods, ['GET']);
    const own = await publisher.api.json<any>('GET', projectPath('public', 'tools/'));
    assert.deepEqual(own.items.flat().find((t: any) => t.tool_name === 'shared_tool').authorized_methods, ['GET', 'PUT', 'DELETE']);
    await rejectsWith(bob.api.send('POST', projectPath('public', 'tools/'), { json: { tool_name: 'vandal' } }), 403, 'AccessDenied', 'may read but not change');
  });

  it('answers an unknown project of the own account with the operation error', async () => {
    await rejectsWith(alice.api.send('GET', projectPath(alice.name, 'tools/', 'nosuchproject')), 404, 'ToolNotExists');
    await rejectsWith(
      alice.api.send('POST', projectPath(alice.name, 'tools/', 'nosuchproject'), { json: { tool_name: 'x_tool' } }),
      400,
      'InvalidParameter',
      "project 'nosuchproject' does not exist",
    );
  });

  it('answers the gwc credentials and policies routes', async () => {
    const credentials = await alice.api.json<any>('GET', '/miscellaneous/credentials/');
    assert.deepEqual(credentials, { account_name: alice.name, user_name: alice.name });
    const policies = await alice.api.json<any>('GET', `/accounts/${alice.name}/users/${alice.name}/authorized_policies/`);
    assert.deepEqual(policies, []);
  });
});
