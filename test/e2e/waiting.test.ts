/**
 * Why a job waits (issue 22, item 12), read through an API replica that runs no jobs while a worker process runs
 * them (the wait travels through the store, not through memory), on every store backend, through the HTTP API and the
 * built CLI: a task no worker holds yet, jobs waiting for CPUs and for memory on their worker with the free amounts,
 * a job waiting for an upstream job, a scheduled task's start time; and none of it once the jobs run.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster } from '../helpers/cluster.js';
import { runCli } from '../helpers/process.js';
import { projectPath, type TestAccount } from '../helpers/server.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';
import { activate, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, toolId } from '../helpers/workflows.js';

const scratch = mkdtempSync(join(tmpdir(), 'gdflow-waiting-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const tool = (cpu: number, mem: string, command: string, input = false) => ({
  cmd_template: `${command}; echo done > {{ outputs.out[0].path }}`,
  ...(input ? { inputs: { src: { type: 'file', formats: ['txt'], required: true } } } : {}),
  outputs: { out: { type: 'file', formats: 'txt', required: true } },
  requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu, mem, disk: '64m', network: false } },
});

const jobsOf = async (account: TestAccount, taskId: string): Promise<Record<string, any>> =>
  Object.fromEntries(((await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`))).jobs as any[]).map((j) => [j.node_id, j]));

/** Poll until `check` holds for the task's jobs; returns them. */
async function until(account: TestAccount, taskId: string, check: (jobs: Record<string, any>) => boolean, what: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const jobs = await jobsOf(account, taskId);
    if (check(jobs)) return jobs;
    if (Date.now() > deadline) assert.fail(`${what}: ${JSON.stringify(Object.values(jobs).map((j) => [j.node_id, j.status, j.reason, j.waiting_for]))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const backend of STORE_BACKENDS) {
  describe(`why a job waits, read through an API replica: ${backend.name}`, { skip: backend.skip, timeout: 180_000 }, () => {
    let cluster: Cluster;
    let account: TestAccount & { key: { access_key_id: string; access_key_secret: string } };
    let apiUrl = '';
    const flag = join(scratch, `${backend.name}-release`);
    const cli = (args: string[]) => {
      const key = { GDFLOW_ACCESS_KEY_ID: account.key.access_key_id, GDFLOW_ACCESS_KEY_SECRET: account.key.access_key_secret };
      const env = { GDFLOW_CONFIG_FILE: join(scratch, 'none.yml'), GDFLOW_ENDPOINT: apiUrl, ...key };
      const result = runCli(args, { env });
      assert.equal(result.status, 0, result.stderr);
      return result.stdout;
    };

    before(async () => {
      const { url } = await backend.database();
      cluster = new Cluster(url);
      const api = await cluster.start('api');
      apiUrl = api.url;
      account = cluster.account(`waits${backend.name}`, api);
      // hold: 1 CPU and 512 MB until released; wide: 2 CPUs; heavy: 900 MB; next: after wide.
      await registerTool(account, 'hold', tool(1, '512m', `while [ ! -e ${flag} ]; do sleep 0.1; done`));
      await registerTool(account, 'wide', tool(2, '64m', 'true'));
      await registerTool(account, 'heavy', tool(1, '900m', 'true'));
      await registerTool(account, 'then', tool(2, '64m', 'true', true));
      await createWorkflow(account, 'crowded', {
        nodelist: [
          { node_id: 'hold', app_id: await toolId(account, 'hold', 1), outputs: {} },
          { node_id: 'wide', app_id: await toolId(account, 'wide', 1), outputs: { out: [{ enid: 'w' }] } },
          { node_id: 'heavy', app_id: await toolId(account, 'heavy', 1), outputs: {} },
          { node_id: 'next', app_id: await toolId(account, 'then', 1), inputs: { src: [{ enid: 'w' }] }, outputs: {} },
        ],
      });
    });
    after(async () => cluster?.stop());

    it('says a task no worker holds waits for a worker, and a scheduled one for its start time', async () => {
      const { task_id } = await activate(account, { workflow_name: 'crowded', workflow_version: 1, task_name: 'unheld' });
      const jobs = await jobsOf(account, task_id);
      assert.equal(jobs.hold.status, 'queued');
      assert.equal(jobs.hold.waiting_for, 'waiting for a worker to take the task');
      assert.equal(jobs.next.waiting_for, 'waiting for upstream job wide');
      const info = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/${jobs.next.job_id}/`));
      assert.equal(info.waiting_for, 'waiting for upstream job wide', 'job info too');
      assert.match(cli(['task', 'get', task_id]), /^waiting: +hold: waiting for a worker to take the task$/m);
      await account.api.send('PUT', projectPath(account.name, `tasks/${task_id}/`));

      const at = Math.floor(Date.now() / 1000) + 3600;
      const parameters = { Conditions: { schedule: String(at) } };
      const later = await activate(account, { workflow_name: 'crowded', workflow_version: 1, task_name: 'later', parameters });
      const scheduled = await jobsOf(account, later.task_id);
      assert.equal(scheduled.hold.waiting_for, `waiting for the scheduled start, ${new Date(at * 1000).toISOString()}`);
      await account.api.send('PUT', projectPath(account.name, `tasks/${later.task_id}/`));
    });

    it('says which jobs wait for CPUs and for memory on their worker, with what is free, until they run', async () => {
      // Without the call cache, whose look-ups ahead of a start would change the order in which the jobs are tried.
      await cluster.start('worker', ['--cpus', '2', '--memory', '1g', '--executor', 'host', '--call-caching', 'off']);
      const { task_id } = await activate(account, { workflow_name: 'crowded', workflow_version: 1, task_name: 'crowded' });
      const waits = (job: any) => job.reason.startsWith('waiting for');
      const jobs = await until(account, task_id, (j) => j.hold.status === 'running' && waits(j.wide) && waits(j.heavy), 'hold runs, the others wait');
      assert.equal(jobs.hold.waiting_for, null, 'a running job waits for nothing');
      assert.equal(jobs.wide.status, 'queued');
      assert.equal(jobs.wide.waiting_for, 'waiting for 2 CPUs (1 free)');
      assert.equal(jobs.wide.reason, 'waiting for 2 CPUs (1 free)', 'in its reason too');
      assert.equal(jobs.heavy.waiting_for, 'waiting for 900 MB of memory (512 MB free)');
      assert.equal(jobs.next.waiting_for, 'waiting for upstream job wide');
      const info = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/${jobs.wide.job_id}/`));
      assert.equal(info.waiting_for, 'waiting for 2 CPUs (1 free)');
      // The CLI: the jobs' table shows the wait in place of the reason, task get lists the jobs that could run.
      const table = cli(['task', 'jobs', task_id]);
      assert.match(table, /^wide +wide +queued .*waiting for 2 CPUs \(1 free\)/m);
      assert.match(table, /^next +then +waiting .*waiting for upstream job wide/m);
      const got = cli(['task', 'get', task_id]);
      assert.match(got, /^waiting: +wide: waiting for 2 CPUs \(1 free\)$/m);
      assert.match(got, /^waiting: +heavy: waiting for 900 MB of memory \(512 MB free\)$/m);
      assert.doesNotMatch(got, /next:/, 'only jobs whose upstream jobs are done');

      writeFileSync(flag, '');
      assert.equal((await waitForTask(account, task_id, { timeoutMs: 60_000 })).status, 'succeeded');
      for (const job of Object.values(await jobsOf(account, task_id))) {
        assert.equal(job.waiting_for, null, job.node_id);
        assert.doesNotMatch(job.reason, /^waiting for/, job.node_id);
      }
      const { events } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/events/`));
      const wide = events.filter((e: any) => e.job_id === jobs.wide.job_id).map((e: any) => [e.from, e.to]);
      assert.deepEqual(
        wide,
        [
          ['queued', 'running'],
          ['running', 'succeeded'],
        ],
        'a wait is no state change: no event',
      );
    });
  });
}
