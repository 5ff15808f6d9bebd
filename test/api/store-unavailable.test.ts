/**
 * A database that cannot serve (issue 22: no store error escapes ActivateWorkflow as a 500): with its PostgreSQL
 * gone, the server answers 503 ServiceUnavailable with the GeneDock error body and Retry-After, for an activation as
 * for a read, and keeps serving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorizationHeader, signRequest } from '../../src/signing/index.js';
import { rejectsWith } from '../helpers/assert-api.js';
import { skipWithout } from '../helpers/components.js';
import { launchPostgres, postgresUnavailable, type PostgresCluster } from '../helpers/postgres.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate } from '../helpers/tasks.js';
import { singleToolWorkflow, template } from '../helpers/workflows.js';

describe('a database that cannot serve', { skip: skipWithout(postgresUnavailable()) }, () => {
  let cluster: PostgresCluster;
  let server: TestServer;
  let alice: TestAccount;
  let parameters: Record<string, unknown>;

  before(async () => {
    // A cluster of its own: this test stops it.
    cluster = await launchPostgres();
    server = await startTestServer({ role: 'api', database: await cluster.createDatabase('unavailable') });
    alice = await server.account();
    const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '64m', disk: '64m', network: false } };
    const tool = { cmd_template: 'echo hi > {{ outputs.out[0].path }}', outputs: { out: { type: 'file', formats: 'txt' } }, requirements };
    await singleToolWorkflow(alice, 'gone', tool);
    parameters = await template(alice, 'gone');
  });
  after(async () => {
    await server.close();
    await cluster.stop();
  });

  it('answers 503 ServiceUnavailable, not 500, to ActivateWorkflow and to a task list, and keeps serving', async () => {
    const first = await activate(alice, { workflow_name: 'gone', workflow_version: 1, parameters });
    assert.match(first.task_id, /^[0-9a-f]{24}$/);
    await cluster.stop();
    // The caller's key is still known (the server's read cache holds it); what the calls need from the store is not.
    const again = activate(alice, { workflow_name: 'gone', workflow_version: 1, parameters });
    await rejectsWith(again, 503, 'ServiceUnavailable', /the database is unreachable or busy; send the request again/);
    const target = projectPath(alice.name, 'tasks/');
    const date = new Date().toUTCString();
    const signature = signRequest(alice.accessKeySecret, { method: 'GET', target, headers: { Date: date } });
    const response = await fetch(server.url + target, { headers: { Date: date, Authorization: authorizationHeader(alice.accessKeyId, signature) } });
    const body = (await response.json()) as Record<string, string>;
    assert.equal(response.status, 503, JSON.stringify(body));
    assert.equal(response.headers.get('retry-after'), '1');
    assert.deepEqual(Object.keys(body).sort(), ['error_code', 'error_message', 'error_message_chs']);
    assert.equal(body.error_code, 'ServiceUnavailable');
    // The process lives on.
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });
});
