/**
 * wdl/tasks/ over real HTTP, signed as gwc 0.4.4 and gdpy 0.1.17 send it (docs/wire.md §8): a stored WDL version run as
 * a gdflow task (the same task under tasks/ and wdl/tasks/, its jobs under both), stop and delete, restarts with
 * debug_params listed by source_id, and a refusal naming the field for every malformed request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefused } from '../helpers/raw.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { waitForTask } from '../helpers/tasks.js';
import { gdpy, gwcForm, LIB, MAIN, sendForm, zipOf } from '../helpers/wdl.js';

describe('wdl/tasks/ as gwc and gdpy use them', () => {
  let server: TestServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let workflowId: string;

  before(async () => {
    server = await startTestServer();
    alice = await server.account();
    bob = await server.account();
    const form = gwcForm(
      { name: 'hello_run', description: '' },
      { source: { filename: 'hello.wdl', data: MAIN }, dependencies: { filename: 'imports.zip', data: zipOf({ 'lib/tasks.wdl': LIB }) } },
    );
    const created = await sendForm(server, alice, 'POST', 'wdl/workflow/', form);
    assert.equal(created.status, 200, created.text);
    workflowId = created.json().id;
  });
  after(async () => server.close());

  const run = (body: Record<string, unknown>) => gdpy(server, alice, 'POST', 'wdl/tasks/', body);
  const gwcRun = (taskName: string) =>
    run({
      workflow_id: workflowId,
      workflow_version: 1,
      inputs: { 'hello.who': 'world' },
      output_dir: `${alice.name}:/home/admin/${taskName}/`,
      task_name: taskName,
      keep_output_structure: true,
    });

  it('runs a version as a gdflow task: the same task and jobs under tasks/ and wdl/tasks/', async () => {
    const started = await gwcRun('hello_task');
    assert.equal(started.status, 200, started.text);
    const { task_id: taskId, task_name: taskName } = started.json();
    assert.match(taskId, /^[0-9a-f]{24}$/);
    assert.equal(taskName, 'hello_task');
    const viaTasks = (await gdpy(server, alice, 'GET', `tasks/${taskId}/`)).json();
    const viaWdl = (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/`)).json();
    assert.equal(viaTasks.task_id, taskId);
    assert.equal(viaWdl.task_id, taskId);
    assert.equal(viaWdl.workflow_name, 'hello_run');
    assert.equal(viaWdl.workflow_version, 1);
    assert.equal(viaWdl.workflow_id, workflowId);
    // gwc reads jobs from tasks/<id>/jobs/, gdpy from wdl/tasks/<id>/jobs/: compared once the run has ended, as a live
    // run adds its calls' jobs when it expands (between the two reads, on a slow store).
    await waitForTask(alice, taskId, { timeoutMs: 120_000 });
    const jobs = (await gdpy(server, alice, 'GET', `tasks/${taskId}/jobs/`)).json();
    assert.deepEqual(
      (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/`)).json().jobs.map((j: any) => j.job_id),
      jobs.jobs.map((j: any) => j.job_id),
    );
    assert.ok(jobs.jobs.length >= 1);
    for (const job of jobs.jobs) assert.ok(job.job_id.startsWith(`${taskId}_`) && typeof job.name === 'string');
    // Listed by gwc's task ls.
    const listed = (await gdpy(server, alice, 'GET', `wdl/tasks/?size=500&to=${Math.floor(Date.now() / 1000)}`)).json();
    assert.ok(listed.task_list.some((t: any) => t.task_id === taskId));
    // Stop (a harmless 200 however it ended) and delete, then 404.
    assert.equal((await gdpy(server, alice, 'PUT', `wdl/tasks/${taskId}/`)).status, 200);
    assert.equal((await gdpy(server, alice, 'DELETE', `wdl/tasks/${taskId}/`)).status, 200);
    assertRefused(await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/`), 404, 'TaskNotFound', /does not exist/);
  });

  it('takes the latest version without workflow_version, and a default output_dir', async () => {
    const started = await run({ workflow_id: workflowId, inputs: { 'hello.who': 'you' } });
    assert.equal(started.status, 200, started.text);
    const task = (await gdpy(server, alice, 'GET', `tasks/${started.json().task_id}/`)).json();
    assert.equal(task.workflow_version, 1);
  });

  it('restarts with debug_params: a new task whose source_id is the old one, listed under ?source_id=', async () => {
    const { task_id: source } = (await gwcRun('to_restart')).json();
    const restarted = await gdpy(server, alice, 'PUT', `wdl/tasks/${source}/restart/`, {
      debug_params: [{ job_name: 'greet', runtime: { cpu: '2c', memory: '1G', disk: '10G' }, command: 'echo "hello again"' }],
    });
    assert.equal(restarted.status, 200, restarted.text);
    const { task_id: again, task_name: againName } = restarted.json();
    assert.notEqual(again, source);
    assert.match(againName, /^to_restart_restart_\d{14}_[0-9a-f]{6}$/);
    const empty = await gdpy(server, alice, 'PUT', `wdl/tasks/${source}/restart/`, { debug_params: [] });
    assert.equal(empty.status, 200, empty.text);
    const subTasks = (await gdpy(server, alice, 'GET', `wdl/tasks/?source_id=${source}`)).json();
    assert.deepEqual(
      subTasks.task_list.map((t: any) => t.task_id),
      [empty.json().task_id, again],
    );
    assert.equal(subTasks.count, 2);
    assert.deepEqual((await gdpy(server, alice, 'GET', `wdl/tasks/?source_id=${again}`)).json().task_list, []);
    // The restart ran the same inputs again: same workflow version, its own task.
    const task = (await gdpy(server, alice, 'GET', `tasks/${again}/`)).json();
    assert.equal(task.workflow_id, workflowId);
  });

  it('refuses malformed runs and restarts naming the field, and starts nothing', async () => {
    const count = async () => (await gdpy(server, alice, 'GET', 'tasks/?size=500')).json().task_list.length;
    const before = await count();
    assertRefused(await run({}), 400, 'InvalidParameter', /workflow_id/);
    assertRefused(await run({ workflow_id: 'abc' }), 400, 'InvalidParameter', /workflow_id 'abc' is not a WDL workflow id/);
    assertRefused(await run({ workflow_id: '0123456789abcdef01234567' }), 404, 'WorkflowNotExists', /does not exist/);
    assertRefused(await run({ workflow_id: workflowId, workflow_version: 9 }), 404, 'WorkflowNotExists', /no version 9/);
    assertRefused(await run({ workflow_id: workflowId, workflow_version: '1.5' }), 400, 'InvalidParameter', /workflow_version string "1\.5" is not a version/);
    assertRefused(await run({ workflow_id: workflowId, inputs: '{not json' }), 400, 'InvalidParameter', /inputs is not a JSON object/);
    assertRefused(await run({ workflow_id: workflowId, inputs: { 'hello.nosuch': 1 } }), 400, 'InvalidParameter', /inputs\.hello\.nosuch is not an input/);
    assertRefused(await run({ workflow_id: workflowId, inputs: { 'hello.times': 'many' } }), 400, 'InvalidParameter', /inputs\.hello\.times/);
    assertRefused(await run({ workflow_id: workflowId, task_name: '1bad' }), 400, 'InvalidParameter', /task_name '1bad' must start with a letter/);
    assertRefused(await run({ workflow_id: workflowId, keep_output_structure: 'maybe' }), 400, 'InvalidParameter', /keep_output_structure 'maybe'/);
    assertRefused(await run({ workflow_id: workflowId, output_dir: 7 }), 400, 'InvalidParameter', /output_dir/);
    assertRefused(await gdpy(server, bob, 'POST', 'wdl/tasks/', { workflow_id: workflowId }), 404, 'WorkflowNotExists', /does not exist/);
    const { task_id: source } = (await gwcRun('restart_checks')).json();
    const restart = (body: unknown) => gdpy(server, alice, 'PUT', `wdl/tasks/${source}/restart/`, body);
    assertRefused(await restart({ debug_params: {} }), 400, 'InvalidParameter', /debug_params/);
    assertRefused(await restart({ debug_params: [{}] }), 400, 'InvalidParameter', /debug_params\[0\]\.job_name is required/);
    assertRefused(
      await restart({ debug_params: [{ job_name: 'nosuch' }] }),
      400,
      'InvalidParameter',
      /debug_params\[0\]\.job_name 'nosuch' is no call of workflow \w+ \(its calls: greet\)/,
    );
    assertRefused(
      await restart({ debug_params: [{ job_name: 'greet', runtime: { cpu: 'lots' } }] }),
      400,
      'InvalidParameter',
      /debug_params\[0\]\.runtime\.cpu string "lots"/,
    );
    assertRefused(
      await restart({ debug_params: [{ job_name: 'greet', runtime: { memory: '2X' } }] }),
      400,
      'InvalidParameter',
      /debug_params\[0\]\.runtime\.memory string "2X"/,
    );
    assertRefused(
      await restart({ debug_params: [{ job_name: 'greet', runtime: { gpu: 1 } }] }),
      400,
      'InvalidParameter',
      /debug_params\[0\]\.runtime\.gpu is not one of cpu, memory, disk/,
    );
    assertRefused(
      await restart({ debug_params: [{ job_name: 'greet' }, { job_name: 'greet' }] }),
      400,
      'InvalidParameter',
      /debug_params\[1\]\.job_name 'greet' names call greet a second time/,
    );
    assertRefused(
      await restart({ debug_params: [{ job_name: 'greet', command: 5 }] }),
      400,
      'InvalidParameter',
      /debug_params(\[0\]|\.0)\.command must be a string/,
    );
    assertRefused(await gdpy(server, alice, 'PUT', 'wdl/tasks/0123456789abcdef01234567/restart/', { debug_params: [] }), 404, 'TaskNotFound', /does not exist/);
    // A task that is not a WDL task.
    const cwl = await gdpy(server, alice, 'POST', 'cwl/runs/', {
      document: { cwlVersion: 'v1.2', class: 'CommandLineTool', baseCommand: 'true', inputs: {}, outputs: {} },
    });
    assert.equal(cwl.status, 200, cwl.text);
    assertRefused(await gdpy(server, alice, 'PUT', `wdl/tasks/${cwl.json().task_id}/restart/`, {}), 400, 'InvalidParameter', /is not a WDL task/);
    // Only the two tasks started on purpose exist.
    assert.equal(await count(), before + 2);
  });
});
