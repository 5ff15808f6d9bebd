/**
 * A stored WDL workflow run to its end through wdl/tasks/ as gwc starts it (docs/wire.md §8, docs/wdl.md): created from
 * a multipart form with its imports zip, run on the host executor, its jobs read under tasks/<id>/jobs/ as gwc reads
 * them and its log through the unsigned Log_downloadURL; then restarted with debug_params, the restart run to its end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { waitForTask } from '../helpers/tasks.js';
import { gdpy, gwcForm, LIB, MAIN, sendForm, zipOf } from '../helpers/wdl.js';

describe('a WDL task through wdl/tasks/, to its end', () => {
  let server: TestServer;
  let alice: TestAccount;

  before(async () => {
    server = await startTestServer({ cpus: 2, executor: 'host' });
    alice = await server.account();
  });
  after(async () => server.close());

  it('runs a stored version to success, with its call as a job and its log readable without a signature; a restart runs too', async () => {
    const form = gwcForm(
      { name: 'hello_e2e', description: '' },
      { source: { filename: 'hello.wdl', data: MAIN }, dependencies: { filename: 'imports.zip', data: zipOf({ 'lib/tasks.wdl': LIB }) } },
    );
    const created = await sendForm(server, alice, 'POST', 'wdl/workflow/', form);
    assert.equal(created.status, 200, created.text);
    const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', {
      workflow_id: created.json().id,
      workflow_version: 1,
      inputs: { 'hello.who': 'world' },
      output_dir: `${alice.name}:/home/admin/hello_e2e_run/`,
      task_name: 'hello_e2e_run',
      keep_output_structure: true,
    });
    assert.equal(started.status, 200, started.text);
    const taskId = started.json().task_id;
    const task = await waitForTask(alice, taskId, { timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const { jobs } = (await gdpy(server, alice, 'GET', `tasks/${taskId}/jobs/`)).json();
    const greet = jobs.find((j: any) => j.name === 'greet');
    assert.ok(greet, JSON.stringify(jobs.map((j: any) => j.name)));
    assert.equal(greet.status, 'succeeded');
    const info = (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/${greet.job_id}/`)).json();
    const logText = await (await fetch(info.Log_downloadURL)).text();
    assert.match(logText, /hello world/);

    const restarted = await gdpy(server, alice, 'PUT', `wdl/tasks/${taskId}/restart/`, {
      debug_params: [{ job_name: 'greet', runtime: { cpu: '1c', memory: '512M' } }],
    });
    assert.equal(restarted.status, 200, restarted.text);
    const again = await waitForTask(alice, restarted.json().task_id, { timeoutMs: 120_000 });
    assert.equal(again.status, 'succeeded', again.reason);
    assert.deepEqual(
      (await gdpy(server, alice, 'GET', `wdl/tasks/?source_id=${taskId}`)).json().task_list.map((t: any) => t.task_id),
      [again.task_id],
    );
  });
});
