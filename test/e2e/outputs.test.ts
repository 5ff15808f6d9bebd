/**
 * Where a task's results are (issue 22, item 11), through the real HTTP API with real jobs: GET tasks/<id>/outputs/
 * (and under wdl/tasks/) lists what the task stored with sizes, states, the node and job that wrote each item and
 * its store step; a failed task's stored items are marked partial and what it did not store says so; the data list
 * names the task and job that produced an item, while the item is still what the task stored (not after an upload
 * over it), and after the task's deletion.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rejectsWith } from '../helpers/assert-api.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, upload, waitForTask } from '../helpers/tasks.js';
import { TOOLS, createWorkflow, registerTool, template, toolId } from '../helpers/workflows.js';

let server: TestServer;
let alice: TestAccount;
const requirements = TOOLS.stats!.requirements;
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n';

before(async () => {
  server = await startTestServer({ cpus: 2 });
  alice = await server.account();
  await upload(alice, '/reads/s1.fastq', READS);
  // copy: its input to its output; fail: writes its output, then fails after a while (so that copy's store is done).
  await registerTool(alice, 'copy', {
    cmd_template: 'cat {{ inputs.reads[0].path }} > {{ outputs.out[0].path }}',
    inputs: { reads: { type: 'file', formats: ['fastq'], required: true } },
    outputs: { out: { type: 'file', formats: 'fastq', required: true } },
    requirements,
  });
  await registerTool(alice, 'fail', {
    cmd_template: 'echo partial > {{ outputs.out[0].path }}; sleep {{ parameters.seconds }}; exit {{ parameters.code }}',
    outputs: { out: { type: 'file', formats: 'txt', required: true } },
    parameters: { seconds: { type: 'integer', default: 0, minvalue: 0, maxvalue: 60 }, code: { type: 'integer', default: 0, minvalue: 0, maxvalue: 255 } },
    requirements,
  });
  await createWorkflow(alice, 'two_results', {
    nodelist: [
      { node_id: 'reads', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
      { node_id: 'copy', app_id: await toolId(alice, 'copy', 1), inputs: { reads: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'copied' }] } },
      { node_id: 'other', app_id: await toolId(alice, 'fail', 1), outputs: { out: [{ enid: 'written' }] } },
      { node_id: 'keep_copy', app_id: 'storedata', inputs: { data: { enid: 'copied' } } },
      { node_id: 'keep_other', app_id: 'storedata', inputs: { data: { enid: 'written' } } },
      // The loaded item itself, stored again: produced by the load step.
      { node_id: 'keep_input', app_id: 'storedata', inputs: { data: { enid: 'in' } } },
    ],
  });
});
after(async () => server.close());

async function run(name: string, other: { seconds: number; code: number }) {
  const parameters = await template(alice, 'two_results');
  parameters.Inputs.reads.data[0].name = '/reads/s1.fastq';
  parameters.Outputs.keep_copy.data[0].name = `/results/${name}/copy.fastq`;
  parameters.Outputs.keep_other.data[0].name = `/results/${name}/other.txt`;
  parameters.Outputs.keep_input.data[0].name = `/results/${name}/input.fastq`;
  parameters.Parameters.other.parameters.seconds.value = other.seconds;
  parameters.Parameters.other.parameters.code.value = other.code;
  const { task_id } = await activate(alice, { workflow_name: 'two_results', workflow_version: 1, task_name: name, parameters });
  return task_id;
}

const outputs = (taskId: string, collection = 'tasks') => alice.api.json<any>('GET', projectPath(alice.name, `${collection}/${taskId}/outputs/`));
const listData = (prefix: string) => alice.api.json<any>('GET', `/accounts/${alice.name}/data/`, { query: { prefix } });
const jobsOf = async (taskId: string) => (await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${taskId}/jobs/`))).jobs as any[];

describe('task outputs and data provenance', () => {
  it('lists what a succeeded task stored: names, sizes, the node, output and job that wrote each, its store step', async () => {
    const taskId = await run('good', { seconds: 0, code: 0 });
    assert.equal((await waitForTask(alice, taskId)).status, 'succeeded');
    const jobs = await jobsOf(taskId);
    const jobOf = (node: string) => jobs.find((j) => j.node_id === node).job_id;
    const answer = await outputs(taskId);
    assert.equal(answer.task_id, taskId);
    assert.equal(answer.task_name, 'good');
    assert.equal(answer.status, 'succeeded');
    assert.equal(answer.partial, false);
    assert.equal(answer.count, 3);
    const byName = new Map(answer.outputs.map((o: any) => [o.name, o]));
    const copy = byName.get(`${alice.name}:/results/good/copy.fastq`) as any;
    assert.deepEqual(
      { ...copy, modified_time: typeof copy.modified_time },
      {
        name: `${alice.name}:/results/good/copy.fastq`,
        description: '',
        state: 'stored',
        partial: false,
        size: READS.length,
        modified_time: 'number',
        node_id: 'copy',
        job_id: jobOf('copy'),
        output: 'out',
        store_node_id: 'keep_copy',
        store_job_id: jobOf('keep_copy'),
      },
    );
    const input = byName.get(`${alice.name}:/results/good/input.fastq`) as any;
    assert.equal(input.node_id, 'reads', 'an item stored as it was loaded: its load step');
    assert.equal(input.job_id, jobOf('reads'));
    assert.equal(input.output, null);
    // The same under wdl/tasks/, where gwc looks.
    assert.deepEqual(await outputs(taskId, 'wdl/tasks'), answer);

    // The data list names the task and the job that produced each item.
    const list = await listData('/results/good/');
    const item = list.items.find((i: any) => i.name === `${alice.name}:/results/good/copy.fastq`);
    assert.deepEqual(item.produced_by, {
      task_id: taskId,
      task_name: 'good',
      task_status: 'succeeded',
      partial: false,
      node_id: 'copy',
      job_id: jobOf('copy'),
      store_node_id: 'keep_copy',
      store_job_id: jobOf('keep_copy'),
      stored_time: item.produced_by.stored_time,
    });
    assert.ok(Math.abs(item.produced_by.stored_time - Date.now() / 1000) < 120);
    // A name without a trailing slash lists that item alone.
    const one = await listData('/results/good/copy.fastq');
    assert.deepEqual(one, { items: [item], count: 1 });
    // An upload is produced by no task.
    assert.equal((await listData('/reads/s1.fastq')).items[0].produced_by, null);
  });

  it("marks a failed task's stored items partial, and says what it did not store", async () => {
    const taskId = await run('bad', { seconds: 3, code: 3 });
    const task = await waitForTask(alice, taskId);
    assert.equal(task.status, 'failed');
    const answer = await outputs(taskId);
    assert.equal(answer.partial, true);
    const state = Object.fromEntries(answer.outputs.map((o: any) => [o.store_node_id, [o.state, o.partial, o.size === null]]));
    assert.deepEqual(state, {
      keep_copy: ['stored', true, false],
      keep_input: ['stored', true, false],
      keep_other: ['not_stored', false, true],
    });
    const item = (await listData('/results/bad/')).items.find((i: any) => i.name.endsWith('/copy.fastq'));
    assert.equal(item.produced_by.task_status, 'failed');
    assert.equal(item.produced_by.partial, true);
    assert.equal(
      (await listData('/results/bad/')).items.some((i: any) => i.name.endsWith('/other.txt')),
      false,
    );
  });

  it('says pending while the task runs, replaced after an upload over an item, missing after its deletion', async () => {
    const taskId = await run('later', { seconds: 30, code: 0 });
    const deadline = Date.now() + 30_000;
    let answer = await outputs(taskId);
    while (answer.outputs.find((o: any) => o.store_node_id === 'keep_copy').state !== 'stored' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await outputs(taskId);
    }
    const states = () => Object.fromEntries(answer.outputs.map((o: any) => [o.store_node_id, o.state]));
    assert.deepEqual(states(), { keep_copy: 'stored', keep_input: 'stored', keep_other: 'pending' });
    assert.equal(answer.partial, false, 'not partial while it runs');
    await alice.api.send('PUT', projectPath(alice.name, `tasks/${taskId}/`));
    assert.equal((await waitForTask(alice, taskId)).status, 'stopped');
    await upload(alice, '/results/later/copy.fastq', 'something else\n');
    await alice.api.send('DELETE', `/accounts/${alice.name}/data/results/later/input.fastq`);
    answer = await outputs(taskId);
    assert.deepEqual(states(), { keep_copy: 'replaced', keep_input: 'missing', keep_other: 'not_stored' });
    assert.equal(answer.partial, true, 'a stopped task');
    assert.equal(answer.outputs.find((o: any) => o.state === 'replaced').size, null);
    assert.equal((await listData('/results/later/copy.fastq')).items[0].produced_by, null, 'an upload over it: no longer the task output');
  });

  it("keeps an item's provenance after its task is deleted, without a task state", async () => {
    const taskId = await run('gone', { seconds: 0, code: 0 });
    assert.equal((await waitForTask(alice, taskId)).status, 'succeeded');
    await alice.api.send('DELETE', projectPath(alice.name, `tasks/${taskId}/`));
    const item = (await listData('/results/gone/copy.fastq')).items[0];
    assert.equal(item.produced_by.task_id, taskId);
    assert.equal(item.produced_by.task_name, 'gone');
    assert.equal(item.produced_by.task_status, null);
    assert.equal(item.produced_by.partial, false);
    await rejectsWith(alice.api.json('GET', projectPath(alice.name, `tasks/${taskId}/outputs/`)), 404, 'TaskNotFound');
  });

  it("answers the GeneDock error body for another project's or a malformed task", async () => {
    const bob = await server.account();
    const taskId = await run('private', { seconds: 0, code: 0 });
    await rejectsWith(bob.api.json('GET', projectPath(alice.name, `tasks/${taskId}/outputs/`)), 403, 'AccessDenied');
    await rejectsWith(alice.api.json('GET', projectPath(alice.name, 'tasks/not-a-task/outputs/')), 404, 'TaskNotFound', 'not-a-task');
    await waitForTask(alice, taskId);
  });
});
