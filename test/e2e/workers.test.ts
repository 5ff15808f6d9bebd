import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GdApiError } from '../../src/client/errors.js';
import { Cluster, descendsFrom, processesWith, through } from '../helpers/cluster.js';
import { runCli } from '../helpers/process.js';
import { projectPath, type TestAccount } from '../helpers/server.js';
import { activate, upload, waitForJob, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, toolId } from '../helpers/workflows.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';

/**
 * Several `gdflow serve` processes on one store and one data root: API replicas that never run jobs, and workers
 * that claim tasks through the store. Run on every store backend.
 */

const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '64m', disk: '64m', network: false } };
const scratch = mkdtempSync(join(tmpdir(), 'gdflow-workers-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** load → first → second → store; the tool nodes run `first` and `second` (which must copy src to out). */
async function chain(account: TestAccount, name: string, first: string, second = first): Promise<void> {
  const ids = [];
  for (const [suffix, command] of [
    ['a', first],
    ['b', second],
  ] as const) {
    await registerTool(account, `${name}_${suffix}`, {
      cmd_template: command,
      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
      outputs: { out: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    ids.push(await toolId(account, `${name}_${suffix}`, 1));
  }
  await createWorkflow(account, `${name}_flow`, {
    nodelist: [
      { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
      { node_id: 'first', app_id: ids[0], inputs: { src: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'a' }] } },
      { node_id: 'second', app_id: ids[1], inputs: { src: [{ enid: 'a' }] }, outputs: { out: [{ enid: 'b' }] } },
      { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'b' } }, parameters: { name: { value: `/out/${name}.txt` } } },
    ],
  });
}

async function start(account: TestAccount, workflow: string, input: string, taskName?: string): Promise<string> {
  const { parameter } = await account.api.json<any>('GET', projectPath(account.name, `executable-workflows/${workflow}/`), { query: { workflow_version: 1 } });
  parameter.Inputs.load.data[0].name = input;
  const { task_id } = await activate(account, {
    workflow_name: workflow,
    workflow_version: 1,
    parameters: parameter,
    ...(taskName ? { task_name: taskName } : {}),
  });
  return task_id;
}

/** The HTTP status of a request, whether it succeeded or not. */
async function statusOf(request: Promise<Response>): Promise<number> {
  try {
    return (await request).status;
  } catch (error) {
    if (error instanceof GdApiError) return error.status;
    throw error;
  }
}

const jobsOf = async (account: TestAccount, taskId: string) =>
  Object.fromEntries(((await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`))).jobs as any[]).map((j) => [j.node_id, j]));

for (const backend of STORE_BACKENDS) {
  describe(`workers and replicas on one store: ${backend.name}`, { skip: backend.skip }, () => {
    let database = '';
    let cleanup: () => Promise<void> = () => Promise.resolve();
    before(async () => ({ url: database, cleanup } = await backend.database()));
    after(async () => cleanup());

    it('two workers competing for tasks never run a job twice, and both run jobs', { timeout: 120_000 }, async () => {
      const cluster = new Cluster(database);
      try {
        const api = await cluster.start('api');
        // The twelve tasks are alike: without the call cache off, most of their jobs would reuse the first ones'.
        const options = ['--cpus', '1', '--executor', 'host', '--call-caching', 'off'];
        const workers = [await cluster.start('worker', options), await cluster.start('worker', options)];
        const account = cluster.account('competing', api);
        const log = join(scratch, `${backend.name}-runs.log`);
        // Each run appends its working directory (unique per job) and its launcher's pid (which tells the worker).
        await chain(account, 'marked', `echo "$(pwd) $PPID" >> ${log}; sleep 0.3; cp {{ inputs.src[0].path }} {{ outputs.out[0].path }}`);
        await upload(account, '/in/x.txt', 'x\n');
        const ids = [];
        for (let i = 0; i < 12; i++) ids.push(await start(account, 'marked_flow', '/in/x.txt', `competing_${i}`));
        for (const id of ids) assert.equal((await waitForTask(account, id, { timeoutMs: 90_000 })).status, 'succeeded');

        const runs = readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split(' ') as [string, string]);
        const perJob = new Map<string, number>();
        for (const [dir] of runs) perJob.set(dir, (perJob.get(dir) ?? 0) + 1);
        assert.equal(perJob.size, 24, 'every job ran');
        assert.deepEqual(
          [...perJob.values()].filter((n) => n !== 1),
          [],
          'no job ran twice',
        );
        const byWorker = workers.map((w) => runs.filter(([, launcher]) => descendsFrom(Number(launcher), w.child.pid!)).length);
        assert.equal(byWorker[0]! + byWorker[1]!, 24, `every run is one worker's (${byWorker.join(' + ')})`);
        assert.ok(
          byWorker[0]! > 0 && byWorker[1]! > 0,
          `both workers ran jobs (${byWorker.join(' + ')}); their output:\n${workers.map((w) => w.output()).join('\n')}`,
        );
        for (const id of ids) for (const job of Object.values(await jobsOf(account, id))) assert.equal((job as any).attempt, 1);
      } finally {
        await cluster.stop();
      }
    });

    it('takes over the task of a worker killed while its job runs: finished jobs are kept, the running one runs again', { timeout: 120_000 }, async () => {
      const cluster = new Cluster(database);
      try {
        const api = await cluster.start('api');
        const options = ['--cpus', '2', '--executor', 'host', '--lease-ttl', '3'];
        const workers = [await cluster.start('worker', options), await cluster.start('worker', options)];
        const account = cluster.account('takeover', api);
        const flag = join(scratch, `${backend.name}-slow-once`);
        const marker = `47.${process.pid}${Date.now() % 100000}`;
        // The second node's first run waits long (and leaves a flag); a run that finds the flag is quick.
        const copy = 'cp {{ inputs.src[0].path }} {{ outputs.out[0].path }}';
        await chain(account, 'slowonce', copy, `[ -e ${flag} ] || { touch ${flag}; sleep ${marker}; }; ${copy}`);
        await upload(account, '/in/y.txt', 'y\n');
        const taskId = await start(account, 'slowonce_flow', '/in/y.txt');
        const firstBefore = await waitForJob(account, taskId, 'first', 'succeeded');
        await waitForJob(account, taskId, 'second', 'running');
        let sleeping: number[] = [];
        for (let i = 0; i < 100 && sleeping.length === 0; i++, await new Promise((r) => setTimeout(r, 50))) sleeping = processesWith(`sleep\u0000${marker}`);
        assert.equal(sleeping.length, 1, 'the slow job runs');
        const victim = workers.find((w) => descendsFrom(sleeping[0]!, w.child.pid!));
        assert.ok(victim, 'the slow job runs under one of the workers');
        const killedAt = Date.now();
        victim.child.kill('SIGKILL');
        for (let i = 0; i < 100 && processesWith(`sleep\u0000${marker}`).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(processesWith(`sleep\u0000${marker}`), [], 'the job died with its worker');

        const task = await waitForTask(account, taskId, { timeoutMs: 60_000 });
        assert.equal(task.status, 'succeeded', task.reason);
        const jobs = await jobsOf(account, taskId);
        assert.equal(jobs.first.attempt, 1, 'the finished job was not run again');
        assert.equal(jobs.first.endTime, firstBefore.endTime);
        assert.equal(jobs.second.attempt, 2, 'the interrupted job ran again');
        const takeover = jobs.second.startTime * 1000 - killedAt;
        assert.ok(takeover < 3000 + 2000 + 1000, `taken over ${takeover} ms after the kill (lease 3 s)`);
        const { events } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/events/`));
        const requeued = events.find((e: any) => e.job_id === jobs.second.job_id && e.from === 'running' && e.to === 'queued');
        assert.match(requeued.reason, /its worker was lost while attempt 1 was running/);
        process.stdout.write(`# ${backend.name}: a killed worker's task was taken over ${takeover} ms after the kill (lease 3 s)\n`);
      } finally {
        await cluster.stop();
      }
    });

    it('serves one task through two API replicas: started through one, read, stopped and deleted through the other', { timeout: 120_000 }, async () => {
      const cluster = new Cluster(database);
      try {
        const [a, b] = [await cluster.start('api'), await cluster.start('api')];
        await cluster.start('worker', ['--executor', 'host']);
        const onA = cluster.account('replicated', a);
        const onB = through(onA, b);
        const marker = `53.${process.pid}${Date.now() % 100000}`;
        await chain(onA, 'sleepy', `sleep ${marker}; cp {{ inputs.src[0].path }} {{ outputs.out[0].path }}`);
        await upload(onA, '/in/z.txt', 'z\n');
        const taskId = await start(onA, 'sleepy_flow', '/in/z.txt');
        await waitForJob(onB, taskId, 'first', 'running');
        for (let i = 0; i < 100 && processesWith(`sleep\u0000${marker}`).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(processesWith(`sleep\u0000${marker}`).length, 1);

        const stopAt = Date.now();
        await onB.api.send('PUT', projectPath(onB.name, `tasks/${taskId}/`));
        const stopped = await waitForTask(onA, taskId, { timeoutMs: 10_000 });
        const stopTook = Date.now() - stopAt;
        assert.equal(stopped.status, 'stopped');
        assert.ok(stopTook < 2000, `stopped ${stopTook} ms after the request to the other replica`);
        assert.deepEqual(processesWith(`sleep\u0000${marker}`), [], 'its process is gone');

        await onB.api.send('DELETE', projectPath(onB.name, `tasks/${taskId}/`));
        for (const replica of [onA, onB]) {
          assert.equal(await statusOf(replica.api.send('GET', projectPath(replica.name, `tasks/${taskId}/`))), 404);
        }
        assert.equal(existsSync(join(cluster.dataDir, 'tasks', taskId)), false, 'its files are gone');
      } finally {
        await cluster.stop();
      }
    });

    it('deletes, through an API replica, a task a worker is running: the worker kills it and removes it', { timeout: 120_000 }, async () => {
      const cluster = new Cluster(database);
      try {
        const api = await cluster.start('api');
        await cluster.start('worker', ['--executor', 'host']);
        const account = cluster.account('deleting', api);
        const marker = `59.${process.pid}${Date.now() % 100000}`;
        await chain(account, 'doomed', `sleep ${marker}; cp {{ inputs.src[0].path }} {{ outputs.out[0].path }}`);
        await upload(account, '/in/d.txt', 'd\n');
        const taskId = await start(account, 'doomed_flow', '/in/d.txt');
        await waitForJob(account, taskId, 'first', 'running');
        for (let i = 0; i < 100 && processesWith(`sleep\u0000${marker}`).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        await account.api.send('DELETE', projectPath(account.name, `tasks/${taskId}/`));
        // The DELETE answers once the worker has killed the job and removed the task's files and rows.
        assert.deepEqual(processesWith(`sleep\u0000${marker}`), []);
        assert.equal(existsSync(join(cluster.dataDir, 'tasks', taskId)), false);
        assert.equal(await statusOf(account.api.send('GET', projectPath(account.name, `tasks/${taskId}/`))), 404);
      } finally {
        await cluster.stop();
      }
    });

    it(
      'keeps versions unique and gap-free when two replicas create one tool name at once, and sees writes and revocations of the other replica within 1 s',
      { timeout: 120_000 },
      async () => {
        const cluster = new Cluster(database);
        try {
          const [a, b] = [await cluster.start('api'), await cluster.start('api')];
          const onA = cluster.account('versions', a);
          const onB = through(onA, b);
          await Promise.all(
            Array.from({ length: 30 }, (_, i) =>
              (i % 2 === 0 ? onA : onB).api.send('POST', projectPath(onA.name, 'tools/'), { json: { tool_name: 'contended', description: `${i}` } }),
            ),
          );
          const { tools } = await onB.api.json<any>('GET', projectPath(onA.name, 'tools/contended/'));
          const versions = (tools as any[]).map((t) => t.configs.version as number).sort((x, y) => x - y);
          assert.deepEqual(
            versions,
            Array.from({ length: 30 }, (_, i) => i + 1),
          );

          // A write through A is seen by B's (cached) reads within the documented bound.
          await registerTool(onA, 'seen', { cmd_template: 'true', inputs: {}, outputs: {}, requirements });
          await onB.api.json('GET', projectPath(onA.name, 'tools/seen/'));
          await onA.api.send('POST', projectPath(onA.name, 'tools/'), { json: { tool_name: 'seen', description: 'v2' } });
          // Each read is timed from when it was sent, not when its answer came (late on a loaded machine).
          const wroteAt = Date.now();
          let seenAfter = Infinity;
          while (Date.now() - wroteAt < 3000) {
            const sentAfter = Date.now() - wroteAt;
            const got = await onB.api.json<any>('GET', projectPath(onA.name, 'tools/seen/'));
            if (got.tools.some((t: any) => t.configs.version === 2)) {
              seenAfter = sentAfter;
              break;
            }
            await new Promise((r) => setTimeout(r, 20));
          }
          assert.ok(seenAfter <= 1000, `B saw A's write after ${seenAfter} ms`);

          // A key revoked elsewhere is refused by both replicas within the bound.
          const created = runCli(['admin', 'create-key', onA.name, '--data-dir', cluster.dataDir, ...(database ? ['--database', database] : []), '--json']);
          const key = JSON.parse(created.stdout) as { access_key_id: string; access_key_secret: string };
          const withKey = [a, b].map((server) => through({ ...onA, key }, server));
          for (const replica of withKey) assert.equal((await replica.api.send('GET', projectPath(onA.name, 'tools/'))).status, 200);
          const revoked = runCli(['admin', 'revoke-key', key.access_key_id, '--data-dir', cluster.dataDir, ...(database ? ['--database', database] : [])]);
          assert.equal(revoked.status, 0, revoked.stderr);
          const revokedAt = Date.now();
          for (const replica of withKey) {
            let refusedAfter = Infinity;
            while (Date.now() - revokedAt < 3000) {
              const sentAfter = Date.now() - revokedAt;
              if ((await statusOf(replica.api.send('GET', projectPath(onA.name, 'tools/')))) === 401) {
                refusedAfter = sentAfter;
                break;
              }
              await new Promise((r) => setTimeout(r, 20));
            }
            assert.ok(refusedAfter <= 1000, `a replica still took the revoked key ${refusedAfter} ms after the revocation`);
          }
        } finally {
          await cluster.stop();
        }
      },
    );
  });
}
