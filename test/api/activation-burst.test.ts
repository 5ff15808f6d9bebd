/**
 * ActivateWorkflow in a burst (issue 22, "Under load"): 1,000 unnamed activations of one workflow at once, through
 * real HTTP, all in the same few seconds. Each gets its own name in GeneDock's default form made unique by the task's
 * id (docs/tasks.md), and none answers 500: the generated name used to be probed `_2`, `_3`... up to `_101`, one
 * insert after another, and the 101st collision escaped as a 500. Reruns of one task at once get a name each too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GdApiError } from '../../src/client/errors.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate } from '../helpers/tasks.js';
import { singleToolWorkflow, template } from '../helpers/workflows.js';

const BURST = 1000;

let server: TestServer;
let alice: TestAccount;
let parameters: Record<string, unknown>;

before(async () => {
  // An API replica: the tasks are stored and listed, and no job runs meanwhile.
  server = await startTestServer({ role: 'api' });
  alice = await server.account();
  const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '64m', disk: '64m', network: false } };
  const tool = { cmd_template: 'echo hi > {{ outputs.out[0].path }}', outputs: { out: { type: 'file', formats: 'txt' } }, requirements };
  await singleToolWorkflow(alice, 'burst', tool);
  // Outputs left blank: each task's default is made of its name (/home/<user>/<task_name>/save.txt).
  parameters = await template(alice, 'burst');
});
after(async () => server.close());

/** What each call of a burst came to: the answer, or the error's status and code. */
async function burst<T>(count: number, call: () => Promise<T>): Promise<Array<{ ok: T } | { status: number; code: string; message: string }>> {
  const settled = await Promise.allSettled(Array.from({ length: count }, call));
  return settled.map((s) => {
    if (s.status === 'fulfilled') return { ok: s.value };
    const error = s.reason as unknown;
    if (error instanceof GdApiError) return { status: error.status, code: error.errorCode, message: error.errorMessage };
    return { status: 0, code: 'no answer', message: String(error) };
  });
}

describe('ActivateWorkflow in a burst', () => {
  it(`gives ${BURST} unnamed activations at once a name each, in the default form with the task id, and never a 500`, { timeout: 120_000 }, async () => {
    const results = await burst(BURST, () => activate(alice, { workflow_name: 'burst', workflow_version: 1, parameters }));
    const failed = results.filter((r) => !('ok' in r));
    assert.deepEqual(failed.slice(0, 5), [], `${failed.length} of ${BURST} failed`);
    const started = results.map((r) => (r as { ok: { task_id: string; task_name: string } }).ok);
    for (const { task_id, task_name } of started) {
      const match = /^burst_1_(\d{14})_([0-9a-f]{24})$/.exec(task_name);
      assert.ok(match, task_name);
      assert.equal(match[2], task_id, 'the name ends with the task id');
    }
    assert.equal(new Set(started.map((t) => t.task_name)).size, BURST);

    // Every one is stored once: the list, paged by cursor, holds them all, and its last page (a full one) ends it.
    const listed: string[] = [];
    let pages = 0;
    for (let cursor: string | undefined; ;) {
      const page = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { size: 100, ...(cursor ? { cursor } : {}) } });
      pages++;
      assert.equal(page.total, BURST);
      listed.push(...page.task_list.map((t: any) => t.task_id));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    assert.equal(pages, BURST / 100, 'no empty page after the last full one');
    assert.deepEqual([...listed].sort(), started.map((t) => t.task_id).sort());
    // Each task's default output was made of its own name.
    const one = started[BURST - 1]!;
    const stored = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${one.task_id}/`));
    assert.equal(stored.task_name, one.task_name);
  });

  it('answers a burst of activations under one name with one task and 400s naming task_name, not 500s', { timeout: 60_000 }, async () => {
    const results = await burst(50, () => activate(alice, { workflow_name: 'burst', workflow_version: 1, task_name: 'same_name', parameters }));
    const made = results.filter((r) => 'ok' in r);
    assert.equal(made.length, 1);
    const refused = results.filter((r) => !('ok' in r)) as Array<{ status: number; code: string; message: string }>;
    assert.equal(refused.length, 49);
    for (const r of refused) {
      assert.deepEqual([r.status, r.code], [400, 'InvalidParameter'], r.message);
      assert.match(r.message, /task_name 'same_name' is already used in project 'default'/);
    }
    const listed = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { name: 'same_name' } });
    assert.deepEqual([listed.count, listed.total, listed.next_cursor], [1, 1, null]);
  });

  it('gives reruns of one task at once a name each (the task, _rerun_, the time, the new task id), never a name collision', { timeout: 60_000 }, async () => {
    // Reruns were named <task>_rerun_<time> only: a second rerun in the same second was refused as a name collision.
    const first = await activate(alice, { workflow_name: 'burst', workflow_version: 1, task_name: 'rerun_me', parameters });
    const results = await burst(20, () =>
      alice.api.json<{ task_id: string; task_name: string }>('POST', projectPath(alice.name, `tasks/${first.task_id}/rerun/`)),
    );
    const failed = results.filter((r) => !('ok' in r));
    assert.deepEqual(failed, []);
    const reruns = results.map((r) => (r as { ok: { task_id: string; task_name: string } }).ok);
    for (const { task_id, task_name } of reruns) {
      const match = /^rerun_me_rerun_(\d{14})_([0-9a-f]{24})$/.exec(task_name);
      assert.ok(match, task_name);
      assert.equal(match[2], task_id, 'the name ends with the new task id');
    }
    assert.equal(new Set(reruns.map((t) => t.task_name)).size, 20);
    // A rerun of a rerun keeps within the 128 characters of a task name.
    const again = await alice.api.json<{ task_name: string }>('POST', projectPath(alice.name, `tasks/${reruns[0]!.task_id}/rerun/`));
    assert.match(again.task_name, /^rerun_me_rerun_\d{14}_[0-9a-f]{24}_rerun_\d{14}_[0-9a-f]{24}$/);
  });
});
