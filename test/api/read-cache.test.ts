import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transport } from '../../src/client/transport.js';
import Fastify from 'fastify';
import { ReadCache, cachedReadHandler } from '../../src/server/read-cache.js';
import { openStore } from '../../src/store/open.js';
import { rejectsWith } from '../helpers/assert-api.js';
import { simpleTool } from '../helpers/documents.js';
import { rawRequest } from '../helpers/raw.js';
import { registerTool } from '../helpers/workflows.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Definition reads keep their rendered answers until the next write (src/server/read-cache.ts).
 * These tests read the same request target before and after each kind of change and check that
 * the second answer shows it.
 */

let server: TestServer;
let alice: TestAccount;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
});
after(async () => server.close());

const toolsPath = (a: TestAccount, rest = '') => projectPath(a.name, `tools/${rest}`);

describe('read cache: answers follow every change', () => {
  it('GetTool, GetToolDetails and ListTool show a PutTool made after they were read', async () => {
    await alice.api.send('POST', toolsPath(alice), { json: { tool_name: 'cached_tool' } });
    const before = await alice.api.json<any>('GET', toolsPath(alice, 'cached_tool/'), { query: { tool_version: 1 } });
    assert.equal(before.tools[0].status, 'unchecked');
    const listBefore = await alice.api.json<any>('GET', toolsPath(alice));
    const detailsBefore = await alice.api.json<any>('GET', projectPath(alice.name, 'tooldetails/cached_tool/'), { query: { tool_version: 1 } });
    assert.deepEqual(Object.keys(detailsBefore[0].details.inputs ?? {}), []);

    await alice.api.send('PUT', toolsPath(alice, 'cached_tool/'), { json: { tool_version: 1, configs: simpleTool('cached_tool') } });

    const after = await alice.api.json<any>('GET', toolsPath(alice, 'cached_tool/'), { query: { tool_version: 1 } });
    assert.equal(after.tools[0].status, 'checked');
    const listAfter = await alice.api.json<any>('GET', toolsPath(alice));
    assert.notDeepEqual(listAfter, listBefore);
    assert.equal(listAfter.items.flat().find((t: any) => t.tool_name === 'cached_tool').status, 'checked');
    const detailsAfter = await alice.api.json<any>('GET', projectPath(alice.name, 'tooldetails/cached_tool/'), { query: { tool_version: 1 } });
    assert.deepEqual(Object.keys(detailsAfter[0].details.inputs), ['reads']);
  });

  it('a 404 is not kept: the same target answers once the tool exists, and again 404 once it is deleted', async () => {
    const target = toolsPath(alice, 'late_tool/');
    await rejectsWith(alice.api.send('GET', target), 404, 'ToolNotExists');
    await alice.api.send('POST', toolsPath(alice), { json: { tool_name: 'late_tool' } });
    const got = await alice.api.json<any>('GET', target);
    assert.equal(got.tools.length, 1);
    await alice.api.send('DELETE', target, { query: { tool_version: 1 } });
    await rejectsWith(alice.api.send('GET', target), 404, 'ToolNotExists');
  });

  it('shows a write made through another connection to the database, as another process would make it', async () => {
    await alice.api.send('POST', toolsPath(alice), { json: { tool_name: 'elsewhere' } });
    const target = toolsPath(alice, 'elsewhere/');
    assert.equal((await alice.api.json<any>('GET', target)).tools.length, 1);
    const other = await openStore({ database: server.database, dataDir: server.dataDir });
    try {
      const project = await other.getProject(alice.name, 'default');
      await other.createTool({ projectId: project!.id, name: 'elsewhere', description: 'made elsewhere', visibility: 'private' });
    } finally {
      await other.close();
    }
    // The server notices other connections' commits within its check interval (25 ms; PostgreSQL: a notification).
    const deadline = Date.now() + 5000;
    let versions = 1;
    while (versions === 1 && Date.now() < deadline) {
      versions = (await alice.api.json<any>('GET', target)).tools.length;
      if (versions === 1) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(versions, 2);
  });
});

describe('read cache: answers are kept apart by who asks and how', () => {
  it('gives the public account and another account their own authorized_methods for the same target', async () => {
    const key = await server.services.accounts.createKey('public');
    const publicApi = new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret }, retries: 0 });
    await registerTool({ name: 'public', accessKeyId: key.id, accessKeySecret: key.secret, api: publicApi }, 'shared_tool', simpleTool('shared_tool'));
    const target = projectPath('public', 'tools/');
    const methods = (list: any) => list.items.flat().find((t: any) => t.tool_name === 'shared_tool').authorized_methods;
    // Each reads twice, so that the second read of each is answered from the cache.
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(methods(await publicApi.json<any>('GET', target)), ['GET', 'PUT', 'DELETE']);
      assert.deepEqual(methods(await alice.api.json<any>('GET', target)), ['GET']);
    }
  });

  it("builds links from each request's Host", async () => {
    const sign = { id: alice.accessKeyId, secret: alice.accessKeySecret };
    for (let round = 0; round < 2; round++) {
      for (const host of ['first.example:8080', 'second.example']) {
        const response = await rawRequest(server.url, { method: 'GET', target: toolsPath(alice), headers: { Host: host }, sign });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.json().tool_url, `http://${host}${toolsPath(alice)}`);
      }
    }
  });

  it("still checks every request's signature and key before answering from the cache", async () => {
    const target = toolsPath(alice, 'cached_tool/');
    assert.equal((await alice.api.json<any>('GET', target)).tools.length, 1);
    const forged = await rawRequest(server.url, { method: 'GET', target, sign: { id: alice.accessKeyId, secret: 'not-the-secret' } });
    assert.equal(forged.status, 401);
    assert.equal(forged.json().error_code, 'SignatureDoesNotMatch');
    const bob = await server.account();
    const other = await rawRequest(server.url, { method: 'GET', target, sign: { id: bob.accessKeyId, secret: bob.accessKeySecret } });
    assert.equal(other.status, 403);
  });
});

describe('ReadCache', () => {
  it('drops its entries when the generation moves, and refuses an answer read before a write', () => {
    let generation = 1;
    const cache = new ReadCache(() => generation);
    const started = cache.begin();
    cache.set('a', started, Buffer.from('one'));
    assert.equal(cache.get('a')?.toString(), 'one');
    const readBeforeWrite = cache.begin();
    generation = 2;
    assert.equal(cache.get('a'), undefined);
    cache.set('b', readBeforeWrite, Buffer.from('stale'));
    assert.equal(cache.get('b'), undefined);
  });

  it('stays within its byte budget, keys included, and does not keep answers larger than a sixteenth of it', () => {
    const cache = new ReadCache(() => 1, 1600);
    const generation = cache.begin();
    cache.set('big', generation, Buffer.alloc(95));
    assert.equal(cache.get('big'), undefined, '95 bytes and a 3-character key are over 100');
    cache.set('x'.repeat(60), generation, Buffer.alloc(1));
    assert.equal(cache.get('x'.repeat(60)), undefined, 'a long key counts');
    for (let i = 10; i < 40; i++) cache.set(`k${i}`, generation, Buffer.alloc(94));
    const kept = Array.from({ length: 30 }, (_, i) => cache.get(`k${i + 10}`)).filter(Boolean).length;
    assert.ok(kept > 0 && kept <= 16, `kept ${kept}`);
    assert.ok(cache.get('k39'), 'the newest answer is kept');
  });
});

describe('cachedReadHandler', () => {
  function serve(cache: ReadCache | undefined) {
    let reads = 0;
    const app = Fastify();
    app.get(
      '/thing/',
      cachedReadHandler(cache, () => Promise.resolve({ read: ++reads })),
    );
    const get = async () => {
      const response = await app.inject({ url: '/thing/', headers: { host: 'h' } });
      return { type: response.headers['content-type'], body: response.json<{ read: number }>() };
    };
    return { get, reads: () => reads, close: () => app.close() };
  }

  it('answers a repeated read from the cache with the same bytes, and reads again after a write', async () => {
    let generation = 1;
    const app = serve(new ReadCache(() => generation));
    assert.deepEqual(await app.get(), { type: 'application/json; charset=utf-8', body: { read: 1 } });
    assert.deepEqual(await app.get(), { type: 'application/json; charset=utf-8', body: { read: 1 } });
    assert.equal(app.reads(), 1);
    generation++;
    assert.deepEqual((await app.get()).body, { read: 2 });
    await app.close();
  });

  it('reads every time when the store has no cache', async () => {
    const app = serve(undefined);
    assert.deepEqual(await app.get(), { type: 'application/json; charset=utf-8', body: { read: 1 } });
    assert.deepEqual((await app.get()).body, { read: 2 });
    await app.close();
  });
});
