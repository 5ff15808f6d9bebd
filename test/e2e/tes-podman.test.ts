/**
 * GA4GH TES on the podman executor (docs/ga4gh.md, "States"): a cancel of a task whose executor runs in a container
 * kills the container (CANCELING while it is killed, then CANCELED), and no container of the task is left behind.
 * podman is a component: without it this skips, or fails with GDFLOW_REQUIRE_COMPONENTS=1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureTinyImage, gdflowContainers, skipWithoutRuntime, TINY_IMAGE } from '../helpers/containers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const skip = skipWithoutRuntime('podman');
const TES = '/ga4gh/tes/v1';

describe('TES on podman', { skip }, () => {
  let server: TestServer;
  let alice: TestAccount;
  let auth: string;

  before(async () => {
    ensureTinyImage('podman');
    server = await startTestServer({ executor: 'podman' });
    alice = await server.account();
    auth = `Basic ${Buffer.from(`${alice.accessKeyId}:${alice.accessKeySecret}`).toString('base64')}`;
  });
  after(async () => server?.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${TES}${path}`, {
      method,
      headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as any };
  };

  async function until(id: string, states: string[], ms: number): Promise<any> {
    const deadline = Date.now() + ms;
    for (;;) {
      const task = (await call('GET', `/tasks/${id}?view=FULL`)).json;
      if (states.includes(task.state)) return task;
      if (Date.now() > deadline) assert.fail(`task ${id} is ${task.state}, not ${states.join('/')}: ${JSON.stringify(task)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a cancel kills the running container: RUNNING, CANCELING, CANCELED, no container left', async () => {
    // TERM is ignored in the container: it is killed after the grace period, while the task is CANCELING.
    const created = await call('POST', '/tasks', {
      name: 'podman-cancel',
      executors: [{ image: TINY_IMAGE, command: ['sh', '-c', 'trap "" TERM; echo started; sleep 300'] }],
    });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const id = created.json.id as string;
    await until(id, ['RUNNING'], 60_000);
    assert.ok(gdflowContainers('podman', id).length > 0, 'the executor runs in a container of the task');
    const cancel = await call('POST', `/tasks/${id}:cancel`);
    assert.deepEqual([cancel.status, cancel.json], [200, {}]);
    await until(id, ['CANCELING'], 10_000);
    const task = await until(id, ['CANCELED'], 60_000);
    assert.equal(task.state, 'CANCELED');
    assert.deepEqual(gdflowContainers('podman', id), [], 'the container is gone');
  });
});
