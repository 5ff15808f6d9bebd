import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { rejectsWith } from '../helpers/assert-api.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { activate, download, upload, waitForTask } from '../helpers/tasks.js';
import { TOOLS, createWorkflow, pipelineConfigs, registerPipeline, registerTool, singleToolWorkflow, template, toolId } from '../helpers/workflows.js';

let server: TestServer;
let alice: TestAccount;
let ids: { trim: string; align: string; stats: string };

const requirements = TOOLS.stats!.requirements;
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nTTTTGGGG\n+\nIIIIIIII\n';
const REF = '>chr1\nACGTACGTTTTTGGGG\n';

before(async () => {
  server = await startTestServer({ cpus: 2 });
  alice = await server.account();
  ids = await registerPipeline(alice);
  await createWorkflow(alice, 'pipeline', pipelineConfigs(ids));
  await upload(alice, '/reads/s1.fastq', READS);
  await upload(alice, '/ref/genome.fa', REF);
});
after(async () => server.close());

async function pipelineParameters() {
  const parameters = await template(alice, 'pipeline');
  parameters.Inputs.load_reads.data[0].name = '/reads/s1.fastq';
  parameters.Inputs.load_ref.data[0].name = '/ref/genome.fa';
  return parameters;
}

/**
 * `count` independent nodes n0..n<count-1> running `command` (a tool with one output), each stored by s<i> to
 * `/<name>/<i>.txt`; activates the workflow and returns the task id.
 */
async function activateParallel(account: TestAccount, name: string, command: string, count: number): Promise<string> {
  await registerTool(account, `${name}_tool`, { cmd_template: command, outputs: { out: { type: 'file', formats: 'txt' } }, requirements });
  const app = await toolId(account, `${name}_tool`, 1);
  const nodelist: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) nodelist.push({ node_id: `n${i}`, app_id: app, outputs: { out: [{ enid: `o${i}` }] } });
  for (let i = 0; i < count; i++) nodelist.push({ node_id: `s${i}`, app_id: 'storedata', inputs: { data: { enid: `o${i}` } } });
  await createWorkflow(account, name, { nodelist });
  const parameters = await template(account, name);
  for (let i = 0; i < count; i++) parameters.Outputs[`s${i}`].data[0].name = `/${name}/${i}.txt`;
  return (await activate(account, { workflow_name: name, workflow_version: 1, parameters })).task_id;
}

describe('ActivateWorkflow runs real jobs', () => {
  it('runs a multi-node workflow with a fan-out to the end and stores its outputs', async () => {
    const parameters = await pipelineParameters();
    parameters.Outputs.store_bam.data[0].name = '/results/s1.bam';
    const started = await activate(alice, { workflow_name: 'pipeline', workflow_version: 1, task_name: 'first_run', parameters });
    assert.match(started.task_id, /^[0-9a-f]{24}$/);
    assert.equal(started.task_name, 'first_run');
    const task = await waitForTask(alice, started.task_id);
    assert.equal(task.status, 'succeeded', task.reason);
    assert.equal(task.task_name, 'first_run');
    assert.equal(task.workflow_name, 'pipeline');
    assert.equal(task.workflow_version, 1);
    assert.equal(task.user_name, alice.name);
    assert.ok(task.endTime >= task.startTime && task.startTime >= task.createTime - 1);
    assert.equal(task.process, 100);

    // align = cat(reference, trimmed reads); stats = wc -c of that.
    assert.equal(await download(alice, '/results/s1.bam'), REF + READS);
    assert.equal((await download(alice, '/results/report.txt')).split(' ')[0], String(Buffer.byteLength(REF + READS)));

    const { jobs } = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${started.task_id}/jobs/`));
    assert.equal(jobs.length, 7);
    for (const job of jobs) {
      assert.equal(job.status, 'succeeded', `${job.node_id}: ${job.reason}`);
      assert.ok(job.name, 'every job has a name');
      assert.equal(job.job_id.split('_')[0], started.task_id, 'the task id is the part before the first underscore');
      assert.match(job.job_id, new RegExp(`^${started.task_id}_[0-9a-f]{24}_${job.node_id}$`));
    }
    const align = jobs.find((j: any) => j.node_id === 'align_node');
    const stats = jobs.find((j: any) => j.node_id === 'stats_node');
    assert.ok(stats.startTime >= align.endTime, 'a job starts after its upstream job ended');

    const { cmd } = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${started.task_id}/cmd/${align.job_id}/`));
    assert.equal(cmd, 'cat /var/data/inputs/reference/genome.fa /var/data/inputs/reads/trimmed.fastq > /var/data/outputs/bam/s1.bam # t=2 sample');
    const info = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${started.task_id}/jobs/${align.job_id}/`));
    assert.equal(info.cmd, cmd);
    assert.match(info.Log_downloadURL, /^http:\/\/127\.0\.0\.1:\d+\/logs\//);
    const log = await fetch(info.Log_downloadURL);
    assert.equal(log.status, 200, 'a plain unsigned GET reads the log');
    // Change the signature's first character to another one (always another: the same would not be a change).
    const tampered = await fetch(info.Log_downloadURL.replace(/signature=(.)/, (_match: string, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`));
    assert.equal(tampered.status, 403);
    assert.equal(((await tampered.json()) as { error_code: string }).error_code, 'AccessDenied');

    const { events } = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${started.task_id}/events/`));
    const alignEvents = events.filter((e: any) => e.job_id === align.job_id).map((e: any) => e.to);
    assert.deepEqual(alignEvents, ['queued', 'running', 'succeeded'], 'every job transition is persisted');
  });

  it('generates a task name when none is given and lists tasks newest first', async () => {
    const first = await activate(alice, { workflow_name: 'pipeline', workflow_version: 1, parameters: await pipelineParameters() });
    const second = await activate(alice, { workflow_name: 'pipeline', workflow_version: 1, parameters: await pipelineParameters() });
    assert.match(first.task_name, /^pipeline_1_\d{14}_[0-9a-f]{24}$/);
    assert.ok(first.task_name.endsWith(`_${first.task_id}`), 'the generated name ends with the task id');
    assert.notEqual(first.task_name, second.task_name);
    await waitForTask(alice, first.task_id);
    await waitForTask(alice, second.task_id);
    const now = Math.floor(Date.now() / 1000);
    const list = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { from: now - 3600, to: now, size: 500 } });
    assert.equal(list.count, list.task_list.length);
    assert.ok(list.total >= 3);
    const position = (id: string) => list.task_list.findIndex((t: any) => t.task_id === id);
    assert.ok(position(second.task_id) < position(first.task_id), 'newest first');
    const page = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { size: 1 } });
    assert.equal(page.count, 1);
    assert.equal(page.total, list.total);
    const none = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { from: 1000, to: 2000 } });
    assert.deepEqual([none.count, none.total, none.next_cursor], [0, 0, null]);
    // Keyset pages: next_cursor leads through the same tasks in the same order, and ends with null.
    const paged: string[] = [];
    for (let cursor: string | undefined; ;) {
      const onePage = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { size: 2, ...(cursor ? { cursor } : {}) } });
      paged.push(...onePage.task_list.map((t: any) => t.task_id));
      if (onePage.next_cursor === null) break;
      cursor = onePage.next_cursor;
    }
    const everything = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { size: 1000 } });
    assert.deepEqual(
      paged,
      everything.task_list.map((t: any) => t.task_id),
    );
    await assert.rejects(alice.api.send('GET', projectPath(alice.name, 'tasks/'), { query: { cursor: 'not-a-cursor' } }), /cursor must be the next_cursor/);
    // Filters: state (one or several) and a part of the name, any case.
    const succeeded = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), {
      query: { status: 'succeeded,failed', name: first.task_name.toUpperCase(), size: 1000 },
    });
    assert.ok(succeeded.task_list.some((t: any) => t.task_id === first.task_id));
    for (const t of succeeded.task_list) assert.ok(t.task_name.includes(first.task_name) && ['succeeded', 'failed'].includes(t.status), t.task_name);
    const running = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { status: 'running', name: first.task_name } });
    assert.deepEqual([running.count, running.total], [0, 0]);
    await assert.rejects(alice.api.send('GET', projectPath(alice.name, 'tasks/'), { query: { status: 'done' } }), /status 'done' is not a task state/);
    // gwc reads the same routes under wdl/tasks/.
    const viaWdl = await alice.api.json<any>('GET', projectPath(alice.name, `wdl/tasks/${first.task_id}/`));
    assert.equal(viaWdl.task_id, first.task_id);
  });

  it('runs independent branches in parallel and joins them (fan-out / fan-in)', async () => {
    const account = await server.account();
    await registerTool(account, 'slowcopy', {
      cmd_template: 'sleep 1 && cp {{ inputs.src[0].path }} {{ outputs.dst[0].path }}',
      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
      outputs: { dst: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    await registerTool(account, 'join', {
      cmd_template: 'cat {% for f in inputs.parts %}{{ f.path }} {% endfor %}> {{ outputs.all[0].path }}',
      inputs: { parts: { type: 'file', formats: ['txt'], required: true, minitems: 2, maxitems: 2 } },
      outputs: { all: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    const slow = await toolId(account, 'slowcopy', 1);
    const join = await toolId(account, 'join', 1);
    await createWorkflow(account, 'diamond', {
      nodelist: [
        { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'src' } } },
        { node_id: 'left', app_id: slow, inputs: { src: [{ enid: 'src' }] }, outputs: { dst: [{ enid: 'l' }] } },
        { node_id: 'right', app_id: slow, inputs: { src: [{ enid: 'src' }] }, outputs: { dst: [{ enid: 'r' }] } },
        { node_id: 'both', app_id: join, inputs: { parts: [{ enid: 'l' }, { enid: 'r' }] }, outputs: { all: [{ enid: 'j' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'j' } }, parameters: { name: { value: '/out/joined.txt' } } },
      ],
    });
    await upload(account, '/in/x.txt', 'hello\n');
    const parameters = await template(account, 'diamond');
    parameters.Inputs.load.data[0].name = '/in/x.txt';
    const { task_id } = await activate(account, { workflow_name: 'diamond', workflow_version: 1, parameters });
    const task = await waitForTask(account, task_id);
    assert.equal(task.status, 'succeeded', task.reason);
    assert.equal(await download(account, '/out/joined.txt'), 'hello\nhello\n');
    const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`));
    const byNode = Object.fromEntries(jobs.map((j: any) => [j.node_id, j]));
    // With two CPU slots the two one-second branches overlap.
    assert.ok(byNode.left.startTime < byNode.right.endTime && byNode.right.startTime < byNode.left.endTime, 'left and right ran at the same time');
    assert.ok(byNode.both.startTime >= Math.max(byNode.left.endTime, byNode.right.endTime), 'the join waited for both');
  });

  it('fails a job whose command exits 0 without writing a declared output', async () => {
    const account = await server.account();
    await singleToolWorkflow(account, 'lazy', { cmd_template: 'true', outputs: { out: { type: 'file', formats: 'txt', required: true } }, requirements });
    const { task_id } = await activate(account, { workflow_name: 'lazy', workflow_version: 1, parameters: await template(account, 'lazy') });
    const task = await waitForTask(account, task_id);
    assert.equal(task.status, 'failed');
    assert.match(task.reason, /did not write \/var\/data\/outputs\/out\/save\.txt|did not write \/var\/data\/outputs\/out\//);
  });

  it('waits for a scheduled start time', async () => {
    const parameters = await pipelineParameters();
    const at = Math.ceil(Date.now() / 1000) + 2;
    parameters.Conditions = { schedule: String(at) };
    const { task_id } = await activate(alice, { workflow_name: 'pipeline', workflow_version: 1, parameters });
    const first = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${task_id}/`));
    assert.equal(first.status, 'scheduled');
    const task = await waitForTask(alice, task_id);
    assert.equal(task.status, 'succeeded');
    assert.ok(task.startTime >= at, 'it did not start before its time');
  });

  it('deletes a task: its routes answer 404 and its files are gone', async () => {
    const { task_id } = await activate(alice, { workflow_name: 'pipeline', workflow_version: 1, parameters: await pipelineParameters() });
    await waitForTask(alice, task_id);
    const dir = join(server.dataDir, 'tasks', task_id);
    assert.ok(existsSync(dir));
    assert.equal((await alice.api.send('DELETE', projectPath(alice.name, `tasks/${task_id}/`))).status, 200);
    await rejectsWith(alice.api.send('GET', projectPath(alice.name, `tasks/${task_id}/`)), 404, 'TaskNotFound');
    await rejectsWith(alice.api.send('GET', projectPath(alice.name, `tasks/${task_id}/jobs/`)), 404, 'TaskNotFound');
    assert.equal(existsSync(dir), false);
  });

  it('deletes a task while jobs wait for a slot: nothing of it is left on disk, not even directories made ahead', async () => {
    const account = await server.account();
    // Eight independent jobs on two CPU slots: six wait, and the engine makes their directories ahead. The two that
    // run go on until the deletion kills them, so that the six are still waiting when it comes (jobs of a fixed
    // length could all be over by then on a loaded machine).
    const task_id = await activateParallel(account, 'naps', 'sleep 600 && echo done > {{ outputs.out[0].path }}', 8);
    const dir = join(server.dataDir, 'tasks', task_id);
    // Any two of them: which two start first is the engine's choice.
    const jobs = async () => (await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`))).jobs as any[];
    await until('two of its jobs to run', async () => (await jobs()).filter((j) => j.status === 'running').length === 2);
    const workDirs = () => readdirSync(dir).filter((name) => existsSync(join(dir, name, 'work')));
    // Some waiting job's directory exists before it starts.
    await until('directories of waiting jobs to be made ahead', () => workDirs().length > 2);
    assert.equal((await jobs()).filter((j) => j.status === 'running').length, 2, 'the others still wait');
    assert.equal((await account.api.send('DELETE', projectPath(account.name, `tasks/${task_id}/`))).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(existsSync(dir), false, 'the task directory is gone and stays gone');
  });

  it('deletes a task whose jobs take their time to die: a poll meanwhile does not take the task up again', async () => {
    // Host executor: there a shell can ignore SIGTERM (in bwrap the sandbox's init dies and takes everything
    // with it). The two running jobs do, so the deletion waits out the kill grace period (5 s), during which
    // the engine polls the store (every second) and still finds the task there.
    const host = await startTestServer({ cpus: 2, executor: 'host' });
    try {
      const account = await host.account();
      const task_id = await activateParallel(account, 'stubborn', "trap '' TERM; while :; do sleep 0.1; done; echo x > {{ outputs.out[0].path }}", 8);
      // Any two of its jobs: the eight are looked up in the call cache first, and the first two misses start.
      const jobs = async () => (await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`))).jobs as any[];
      let running = 0;
      for (const deadline = Date.now() + 30_000; running < 2 && Date.now() < deadline; await sleep(50)) {
        running = (await jobs()).filter((j) => j.status === 'running').length;
      }
      assert.equal(running, 2, 'two of its jobs run, one per CPU');
      const started = Date.now();
      assert.equal((await account.api.send('DELETE', projectPath(account.name, `tasks/${task_id}/`))).status, 200);
      assert.ok(Date.now() - started > 2000, 'the deletion waited for the jobs to die, with polls in between');
      // Had a poll taken the task up again, its six waiting jobs would be starting in the freed slots now.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(existsSync(join(host.dataDir, 'tasks', task_id)), false, 'the task directory is gone and stays gone');
      await rejectsWith(account.api.send('GET', projectPath(account.name, `tasks/${task_id}/`)), 404, 'TaskNotFound');
    } finally {
      await host.close();
    }
  });

  it('runs jobs whose directories were made ahead like any other', async () => {
    const account = await server.account();
    const task_id = await activateParallel(account, 'naps2', 'sleep 0.2 && ls -A /var/data > {{ outputs.out[0].path }}', 6);
    const task = await waitForTask(account, task_id);
    assert.equal(task.status, 'succeeded', task.reason);
    // Each job saw an empty working directory apart from the directory of the output it was writing.
    for (let i = 0; i < 6; i++) assert.equal(await download(account, `/naps2/${i}.txt`), 'outputs\n');
  });
});

describe('ActivateWorkflow validates parameters before anything runs', () => {
  const cases: Array<[string, (p: any) => void, string]> = [
    ['a missing required input', (p) => (p.Inputs.load_reads.data = []), 'parameters.Inputs.load_reads.data is empty, but the input is required'],
    ['data that does not exist', (p) => (p.Inputs.load_reads.data[0].name = '/reads/nothere.fastq'), `does not exist in the data store`],
    ['a file of the wrong format', (p) => (p.Inputs.load_ref.data[0].name = '/reads/s1.fastq'), 'has none of the accepted formats fasta, fa'],
    [
      'too many items',
      (p) => p.Inputs.load_reads.data.push({ name: '/reads/s1.fastq' }),
      'parameters.Inputs.load_reads.data has 2 items; at most 1 are allowed',
    ],
    ["another account's data", (p) => (p.Inputs.load_reads.data[0].name = 'someoneelse:/reads/s1.fastq'), "belongs to account 'someoneelse'"],
    ['a path escape', (p) => (p.Inputs.load_reads.data[0].name = '/reads/../../etc/passwd.fastq'), "'..' segments are not allowed"],
    [
      'a parameter of the wrong type',
      (p) => (p.Parameters.trim_node.parameters.quality.value = 'high'),
      'parameters.Parameters.trim_node.parameters.quality.value must be a number',
    ],
    ['a parameter out of range', (p) => (p.Parameters.trim_node.parameters.quality.value = 99), 'is 99, above the maximum 60'],
    [
      'an unknown parameter',
      (p) => (p.Parameters.trim_node.parameters.speed = { value: 1 }),
      'parameters.Parameters.trim_node.parameters.speed is not a parameter',
    ],
    ['an unknown node', (p) => (p.Inputs.ghost = { data: [] }), 'parameters.Inputs.ghost is not a loaddata node'],
    [
      'an output in another account',
      (p) => (p.Outputs.store_bam.data[0].name = 'public:/stolen.bam'),
      "is in account 'public'; a task writes only to its own account's data",
    ],
    ['two outputs to one name', (p) => (p.Outputs.store_bam.data[0].name = '/results/report.txt'), 'is also the output of'],
    ['a bad schedule', (p) => (p.Conditions.schedule = 'tomorrow-ish'), "parameters.Conditions.schedule 'tomorrow-ish' is not a time"],
  ];
  for (const [label, mutate, reason] of cases) {
    it(`refuses ${label}`, async () => {
      const parameters = await pipelineParameters();
      mutate(parameters);
      const before = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { size: 1000 } });
      await rejectsWith(activate(alice, { workflow_name: 'pipeline', workflow_version: 1, parameters }), 400, 'InvalidParameter', reason);
      const afterList = await alice.api.json<any>('GET', projectPath(alice.name, 'tasks/'), { query: { size: 1000 } });
      assert.equal(afterList.total, before.total, 'no task was created');
    });
  }

  it('answers 404 TaskNotFound for a workflow version that does not exist', async () => {
    await rejectsWith(
      activate(alice, { workflow_name: 'pipeline', workflow_version: 9, parameters: {} }),
      404,
      'TaskNotFound',
      "workflow 'pipeline' version 9 does not exist",
    );
    await rejectsWith(activate(alice, { workflow_name: 'nosuchflow', workflow_version: 1 }), 404, 'TaskNotFound');
  });

  it('refuses a task name that is taken or invalid', async () => {
    await rejectsWith(
      activate(alice, { workflow_name: 'pipeline', workflow_version: 1, task_name: 'first_run', parameters: await pipelineParameters() }),
      400,
      'InvalidParameter',
      "task_name 'first_run' is already used",
    );
    await rejectsWith(
      activate(alice, { workflow_name: 'pipeline', workflow_version: 1, task_name: '9lives', parameters: await pipelineParameters() }),
      400,
      'InvalidParameter',
      'must start with a letter',
    );
  });

  it("runs the public account's workflow for another account with workflow_owner", async () => {
    const key = await server.services.accounts.createKey('public');
    const { Transport } = await import('../../src/client/transport.js');
    const publisher: TestAccount = {
      name: 'public',
      accessKeyId: key.id,
      accessKeySecret: key.secret,
      api: new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret }, retries: 0 }),
    };
    const publicIds = await registerPipeline(publisher);
    await createWorkflow(publisher, 'shared_pipeline', pipelineConfigs(publicIds));
    await upload(publisher, '/demo/ref.fa', REF);
    const bob = await server.account();
    await upload(bob, '/mine/r.fastq', READS);
    const parameters = (await bob.api.json<any>('GET', projectPath('public', 'executable-workflows/shared_pipeline/'), { query: { workflow_version: 1 } }))
      .parameter;
    parameters.Inputs.load_reads.data[0].name = '/mine/r.fastq';
    parameters.Inputs.load_ref.data[0].name = 'public:/demo/ref.fa';
    const { task_id } = await activate(bob, { workflow_name: 'shared_pipeline', workflow_version: 1, workflow_owner: 'public', parameters });
    const task = await waitForTask(bob, task_id);
    assert.equal(task.status, 'succeeded', task.reason);
    assert.equal(await download(bob, '/results/report.txt'), `${Buffer.byteLength(REF + READS)} /var/data/inputs/bam/store_bam.bam\n`);
    await rejectsWith(activate(bob, { workflow_name: 'pipeline', workflow_version: 1, workflow_owner: alice.name, parameters }), 403, 'AccessDenied');
  });
});
