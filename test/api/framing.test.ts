import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rejectsWith } from '../helpers/assert-api.js';
import { parseRawResponse, rawRequest, rawSocket } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let alice: TestAccount;

before(async () => {
  server = await startTestServer({ bodyLimit: 4096 });
  alice = await server.account();
});
after(async () => server.close());

function assertErrorBody(raw: string, status: number, code: string) {
  const response = parseRawResponse(raw);
  assert.equal(response.status, status, raw);
  assert.match(response.headers['x-gd-requestid'] ?? '', /^[0-9a-f]{24}$/);
  assert.equal(response.body.error_code, code);
  assert.equal(typeof response.body.error_message_chs, 'string');
}

describe('errors before routing are GeneDock JSON errors', () => {
  it('malformed HTTP framing', async () => {
    assertErrorBody(await rawSocket(server.url, 'GET / HTTP/1.1\r\nHost x\r\n\r\n'), 400, 'MalformedRequest');
    assertErrorBody(await rawSocket(server.url, 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'), 400, 'MalformedRequest');
  });

  it('a missing Host header', async () => {
    assertErrorBody(await rawSocket(server.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'MalformedRequest');
  });

  it('oversized headers', async () => {
    assertErrorBody(await rawSocket(server.url, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`), 431, 'RequestHeaderFieldsTooLarge');
  });

  it('an unknown Expect', async () => {
    assertErrorBody(await rawSocket(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n'), 417, 'ExpectationFailed');
  });

  it('an unknown route or method', async () => {
    const unknown = await rawRequest(server.url, { method: 'GET', target: '/nothing/here/', sign: { id: alice.accessKeyId, secret: alice.accessKeySecret } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().error_code, 'ResourceNotFound');
    const patch = await rawRequest(server.url, {
      method: 'PATCH',
      target: projectPath(alice.name, 'tools/'),
      sign: { id: alice.accessKeyId, secret: alice.accessKeySecret },
    });
    assert.equal(patch.json().error_code, 'ResourceNotFound');
    assertErrorBody(await rawSocket(server.url, 'BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n'), 405, 'MethodNotAllowed');
  });

  it('a malformed percent escape in the path', async () => {
    const response = await rawRequest(server.url, {
      method: 'GET',
      target: projectPath(alice.name, 'tools/%E0%A4%A/'),
      sign: { id: alice.accessKeyId, secret: alice.accessKeySecret },
    });
    assert.equal(response.status, 400);
    assert.ok(['MalformedRequest', 'InvaildParameter'].includes(response.json().error_code));
  });
});

describe('body limit', () => {
  it('refuses a body above the configured limit with 413 and writes nothing', async () => {
    const big = { tool_name: 'bigtool', description: 'x'.repeat(5000) };
    await rejectsWith(alice.api.send('POST', projectPath(alice.name, 'tools/'), { json: big }), 413, 'EntityTooLarge', '4096 bytes');
    await rejectsWith(alice.api.send('GET', projectPath(alice.name, 'tools/bigtool/')), 404, 'ToolNotExists');
  });

  it('refuses a body whose content type is not JSON, without reading it', async () => {
    await rejectsWith(
      alice.api.send('POST', projectPath(alice.name, 'tools/'), { body: Buffer.from('tool_name=x'), contentType: 'application/x-www-form-urlencoded' }),
      400,
      'InvalidParameter',
      "the Content-Type 'application/x-www-form-urlencoded' is not application/json",
    );
  });
});
