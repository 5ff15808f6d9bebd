/**
 * `gdflow serve --executor slurm` end to end on a real single-node Slurm (helpers/slurm.ts): the demo pipeline,
 * a failing job, stop and delete leaving nothing in Slurm's queue, a worker SIGKILLed while its Slurm job runs and
 * the restarted worker seeing the same Slurm job to the task's end, and the controller's load (RPCs per job, from
 * sdiag) over a 200-job DAG.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Transport } from '../../src/client/transport.js';
import { skipWithout } from '../helpers/components.js';
import { runCli, startServerProcess, waitForExit, type ServerChild } from '../helpers/process.js';
import { projectPath, type TestAccount } from '../helpers/server.js';
import { slurmUnavailable, startSlurm, type SlurmCluster } from '../helpers/slurm.js';
import { activate, download, upload, waitForJob, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, template, toolId } from '../helpers/workflows.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '128m', disk: '64m', network: false } };
const copy = {
  cmd_template: 'cat {{ inputs.src[0].path }} > {{ outputs.out[0].path }}; sleep {{ parameters.seconds }}; exit {{ parameters.code }}',
  inputs: { src: { type: 'file', formats: ['txt'], required: true } },
  outputs: { out: { type: 'file', formats: 'txt', required: true } },
  parameters: { seconds: { type: 'integer', default: 0, minvalue: 0, maxvalue: 600 }, code: { type: 'integer', default: 0, minvalue: 0, maxvalue: 255 } },
  requirements,
};

describe('gdflow serve --executor slurm', { skip: skipWithout(slurmUnavailable()), timeout: 600_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gdflow-slurm-e2e-'));
  const dataDir = join(scratch, 'data');
  let cluster: SlurmCluster;
  let server: ServerChild | undefined;
  let account: TestAccount;
  let key: { access_key_id: string; access_key_secret: string } | undefined;

  const start = async () => {
    server = await startServerProcess(dataDir, ['--executor', 'slurm', '--cpus', '64', '--memory', '16g']);
    if (!key) {
      const created = runCli(['admin', 'create-account', 'slurmuser', '--data-dir', dataDir, '--json']);
      assert.equal(created.status, 0, created.stderr);
      key = JSON.parse(created.stdout) as typeof key;
    }
    account = {
      name: 'slurmuser',
      accessKeyId: key!.access_key_id,
      accessKeySecret: key!.access_key_secret,
      api: new Transport({ endpoint: server.url, credentials: { accessKeyId: key!.access_key_id, accessKeySecret: key!.access_key_secret }, retries: 0 }),
    };
  };
  const jobsOf = async (taskId: string): Promise<any[]> => (await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`))).jobs;

  before(async () => {
    cluster = await startSlurm();
    await start();
    await registerTool(account, 'copy', copy);
    await createWorkflow(account, 'copyflow', {
      nodelist: [
        { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
        { node_id: 'copy', app_id: await toolId(account, 'copy', 1), inputs: { src: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'b' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'b' } } },
      ],
    });
    await upload(account, '/in/words.txt', 'hello\n');
  });
  after(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  const run = async (name: string, seconds: number, code = 0) => {
    const parameters = await template(account, 'copyflow');
    parameters.Inputs.load.data[0].name = '/in/words.txt';
    parameters.Outputs.save.data[0].name = `/out/${name}.txt`;
    parameters.Parameters.copy.parameters.seconds.value = seconds;
    parameters.Parameters.copy.parameters.code.value = code;
    return activate(account, { workflow_name: 'copyflow', workflow_version: 1, task_name: name, parameters });
  };

  it('runs a task on Slurm: the job info shows its Slurm job id; a failing job fails the task with its exit code', async () => {
    const ok = await run('okay', 0);
    const done = await waitForTask(account, ok.task_id, { timeoutMs: 60_000 });
    assert.equal(done.status, 'succeeded', done.reason);
    assert.equal(await download(account, '/out/okay.txt'), 'hello\n');
    const job = (await jobsOf(ok.task_id)).find((j) => j.node_id === 'copy');
    assert.match(job.external_id, /^\d+$/, 'the Slurm job id is in the job info');

    const bad = await run('failing', 0, 4);
    const failed = await waitForTask(account, bad.task_id, { timeoutMs: 60_000 });
    assert.equal(failed.status, 'failed');
    const badJob = (await jobsOf(bad.task_id)).find((j) => j.node_id === 'copy');
    assert.equal(badJob.exit_code, 4);
  });

  it("a job over its --mem is killed by Slurm, typed out of memory, and run again with more as its tool's policy says", async () => {
    await registerTool(account, 'slurmhog', {
      // As in the executor's test: held long enough for Slurm's memory accounting to see it (perl's x makes a copy: 800 MB at its peak).
      cmd_template: `perl -e '$x = "a" x (400*1024*1024); sleep 5; print length($x), "\\n"' > {{ outputs.out[0].path }}`,
      outputs: { out: { type: 'file', formats: 'txt', required: true } },
      requirements: { ...requirements, resources: { ...requirements.resources, mem: '100m' } },
      retry: { max_attempts: 2, on: ['out_of_memory'], memory_factor: 16 },
    });
    await createWorkflow(account, 'hogflow', {
      nodelist: [
        { node_id: 'hog', app_id: await toolId(account, 'slurmhog', 1), outputs: { out: [{ enid: 'b' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'b' } } },
      ],
    });
    const { task_id } = await activate(account, { workflow_name: 'hogflow', workflow_version: 1, parameters: await template(account, 'hogflow') });
    const task = await waitForTask(account, task_id, { timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const hog = (await jobsOf(task_id)).find((j) => j.node_id === 'hog');
    assert.deepEqual(
      hog.attempts.map((a: any) => [a.attempt, a.outcome, a.mem]),
      [
        [1, 'out_of_memory', '100m'],
        [2, 'succeeded', '1600m'],
      ],
    );
    assert.match(hog.attempts[0].reason, /^out of memory: exceeded the 100 MB limit/);
  });

  it("a job Slurm keeps pending says why through the API (squeue's reason), and no more once it runs", async () => {
    // The node has 2 CPUs: two jobs, of 1 and 2 CPUs, cannot run at once; the second Slurm starts waits for Resources.
    // Each runs until the test puts a file in its working directory (/var/data, on the shared data root): with a
    // fixed run time, seeing the wait, and then the start, would be left to the load of the machine.
    for (const cpu of [1, 2]) {
      await registerTool(account, `nap${cpu}`, {
        cmd_template: 'while [ ! -e /var/data/release ]; do sleep 0.1; done; echo x > {{ outputs.out[0].path }}',
        outputs: { out: { type: 'file', formats: 'txt', required: true } },
        requirements: { ...requirements, resources: { ...requirements.resources, cpu } },
      });
    }
    await createWorkflow(account, 'crowd', {
      nodelist: [
        { node_id: 'one', app_id: await toolId(account, 'nap1', 1), outputs: {} },
        { node_id: 'two', app_id: await toolId(account, 'nap2', 1), outputs: {} },
      ],
    });
    const { task_id } = await activate(account, { workflow_name: 'crowd', workflow_version: 1, task_name: 'crowd' });
    const pendingFor = /^waiting for Slurm to start it: Resources \(no node has the free CPUs or memory it asks for yet\)$/;
    let pending: any;
    for (const deadline = Date.now() + 60_000; !pending && Date.now() < deadline; await sleep(200)) {
      pending = (await jobsOf(task_id)).find((j) => pendingFor.test(j.waiting_for ?? ''));
    }
    assert.ok(pending, `a job says it is pending for resources: ${JSON.stringify((await jobsOf(task_id)).map((j) => [j.node_id, j.status, j.waiting_for]))}`);
    assert.equal(pending.status, 'running', "submitted: it has left gdflow's queue for the cluster's");
    assert.match(pending.external_id, /^\d+$/);
    assert.equal(pending.reason, pending.waiting_for);
    const info = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/${pending.job_id}/`));
    assert.match(info.waiting_for, pendingFor, 'job info too');
    // Once the other ends, it starts on the node: it waits no more.
    const release = (node: string) => writeFileSync(join(dataDir, 'tasks', task_id, node, 'work', 'release'), '');
    release(pending.node_id === 'one' ? 'two' : 'one');
    let started: any;
    for (const deadline = Date.now() + 60_000; !started && Date.now() < deadline; await sleep(200)) {
      const job = (await jobsOf(task_id)).find((j) => j.job_id === pending.job_id);
      if (job.status === 'running' && job.waiting_for === null) started = job;
    }
    assert.ok(started, 'it runs, waiting for nothing');
    assert.equal(started.reason, 'started');
    release(pending.node_id);
    assert.equal((await waitForTask(account, task_id, { timeoutMs: 60_000 })).status, 'succeeded');
  });

  it('stop and delete cancel the Slurm jobs: none is left in the queue', async () => {
    for (const how of ['stop', 'delete'] as const) {
      const { task_id } = await run(`long_${how}`, 300);
      const job = await waitForJob(account, task_id, 'copy', 'running', 60_000);
      const id = (await jobsOf(task_id)).find((j) => j.job_id === job.job_id).external_id as string;
      assert.ok(cluster.queued().includes(id), `Slurm job ${id} is queued or running`);
      if (how === 'stop') {
        await account.api.send('PUT', projectPath(account.name, `tasks/${task_id}/`));
        const stopped = await waitForTask(account, task_id, { timeoutMs: 60_000 });
        assert.equal(stopped.status, 'stopped');
      } else {
        await account.api.send('DELETE', projectPath(account.name, `tasks/${task_id}/`));
      }
      for (let i = 0; i < 100 && cluster.queued().includes(id); i++) await sleep(100);
      assert.ok(!cluster.queued().includes(id), `Slurm job ${id} is gone from the queue after ${how}`);
    }
  });

  it('a worker SIGKILLed while its Slurm job runs: the restarted worker follows the same Slurm job to the end', async () => {
    const { task_id } = await run('outlive', 4);
    const job = await waitForJob(account, task_id, 'copy', 'running', 60_000);
    const id = (await jobsOf(task_id)).find((j) => j.job_id === job.job_id).external_id as string;
    server!.child.kill('SIGKILL');
    await waitForExit(server!.child);
    // A moment for anything the dead worker left behind (an scancel of its own) to act; then the Slurm job is
    // still in the queue, or has ended on its own (its few seconds may be over on a loaded machine), not cancelled.
    await sleep(500);
    const state = cluster.state(id);
    assert.ok(['PENDING', 'RUNNING', 'COMPLETING', 'COMPLETED'].includes(state ?? ''), `the Slurm job runs on without its worker (it is ${state})`);
    await start();
    const task = await waitForTask(account, task_id, { timeoutMs: 90_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    assert.equal(await download(account, '/out/outlive.txt'), 'hello\n');
    const after = (await jobsOf(task_id)).find((j) => j.node_id === 'copy');
    assert.equal(after.attempt, 1, 'not submitted again');
    assert.equal(after.external_id, id, 'the same Slurm job');
  });

  it('controller load: RPCs per job over a 200-job DAG stay bounded', async () => {
    const first = await registerTool(account, 'first', {
      cmd_template: 'echo x > {{ outputs.out[0].path }}',
      inputs: {},
      outputs: { out: { type: 'file', formats: 'txt' } },
      requirements,
    });
    assert.equal(first, 1);
    const ids = { first: await toolId(account, 'first', 1), next: await toolId(account, 'copy', 1) };
    const nodelist = [];
    for (let c = 0; c < 100; c++) {
      nodelist.push({ node_id: `c${c}_a`, app_id: ids.first, inputs: {}, outputs: { out: [{ enid: `c${c}_l` }] } });
      nodelist.push({ node_id: `c${c}_b`, app_id: ids.next, inputs: { src: [{ enid: `c${c}_l` }] }, outputs: {} });
    }
    await createWorkflow(account, 'dag200', { nodelist });
    cluster.resetRpcCount();
    const started = Date.now();
    const { task_id } = await activate(account, { workflow_name: 'dag200', workflow_version: 1, parameters: {} });
    const task = await waitForTask(account, task_id, { timeoutMs: 400_000 });
    const seconds = (Date.now() - started) / 1000;
    const byType = cluster.rpcCounts();
    const jobs = await jobsOf(task_id);
    const rerun = jobs.filter((j) => j.attempt > 1).map((j) => `${j.node_id}: attempt ${j.attempt}`);
    const seen = `${JSON.stringify(byType)} in ${seconds.toFixed(1)} s; jobs run again: ${rerun.join(', ') || 'none'}`;
    process.stdout.write(`# controller RPCs for 200 Slurm jobs: ${seen}\n`);
    assert.equal(task.status, 'succeeded', `${task.reason} (${seen})`);
    // What gdflow asks of the controller: one sbatch per run of a job, and squeue (a job-info and a partition-info
    // RPC) once per poll interval for all jobs, whatever their number. The squeues follow the run's length, which the
    // machine's load decides, so they are bounded by time, not per job. slurmd's own reports of each job's end
    // (REQUEST_COMPLETE_BATCH_SCRIPT, MESSAGE_EPILOG_COMPLETE, more of them under load) are Slurm's cost of any job,
    // and REQUEST_STATS_INFO is this test's own sdiag: neither is gdflow's.
    const runs = jobs.reduce((sum, j) => sum + j.attempt, 0);
    assert.ok((byType.REQUEST_SUBMIT_BATCH_JOB ?? 0) <= runs, `one sbatch per run of a job, ${runs} runs (${seen})`);
    const polls = (byType.REQUEST_JOB_INFO ?? 0) + (byType.REQUEST_PARTITION_INFO ?? 0);
    const interval = 5; // s, the executor's default squeue interval (--slurm-queue-ms), which the server here keeps
    assert.ok(polls <= 2 * (Math.ceil(seconds / interval) + 2), `${polls} squeue RPCs in ${seconds.toFixed(1)} s: more than one squeue per interval (${seen})`);
    const notGdflow = new Set(['REQUEST_COMPLETE_BATCH_SCRIPT', 'MESSAGE_EPILOG_COMPLETE', 'MESSAGE_NODE_REGISTRATION_STATUS', 'REQUEST_STATS_INFO']);
    const other = Object.entries(byType)
      .filter(([type]) => !notGdflow.has(type) && !['REQUEST_SUBMIT_BATCH_JOB', 'REQUEST_JOB_INFO', 'REQUEST_PARTITION_INFO'].includes(type))
      .reduce((sum, [, n]) => sum + n, 0);
    assert.ok(other <= 20, `${other} other RPCs, a stop or a look per job where none was due (${seen})`);
  });
});
