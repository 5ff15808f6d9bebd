/**
 * How jobs end, through the API, on every executor that isolates them: the bwrap sandbox and the container
 * executors (podman, and docker where a daemon runs). A failing command, a stop, a timeout and a memory limit
 * must read the same whichever executor ran the job.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gdflowContainers, imageDigest } from '../helpers/containers.js';
import { E2E_EXECUTORS } from '../helpers/executors.js';
import { projectPath, startTestServer, type TestServer } from '../helpers/server.js';
import { activate, waitForJob, waitForTask } from '../helpers/tasks.js';
import { singleToolWorkflow, template } from '../helpers/workflows.js';

for (const executor of E2E_EXECUTORS) {
  const container = executor.name !== 'bwrap';
  describe(`jobs end the same way on every executor: ${executor.name}`, { skip: executor.skip, timeout: 180_000 }, () => {
    let server: TestServer;
    /** A server whose jobs time out after 2 s. */
    let timed: TestServer;
    const requirements = (mem = '256m') => ({ container: { image: executor.image, type: 'docker' }, resources: { cpu: 1, mem, disk: '256m', network: false } });
    /** The containers of a task that are left (none may be). */
    const leftovers = (taskId: string) => (container ? gdflowContainers(executor.name as 'podman' | 'docker', taskId) : []);

    before(async () => {
      executor.prepare();
      server = await startTestServer({ cpus: 2, ...executor.config });
      timed = await startTestServer({ cpus: 2, jobTimeout: 2, ...executor.config });
    });
    after(async () => {
      await server?.close();
      await timed?.close();
    });

    it('fails the task when a node fails, with the reason on the job, and runs nothing after it', async () => {
      const account = await server.account();
      await singleToolWorkflow(account, 'failing', {
        cmd_template: 'echo about to fail >&2; exit 3',
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements: requirements(),
      });
      const { task_id } = await activate(account, { workflow_name: 'failing', workflow_version: 1, parameters: await template(account, 'failing') });
      const task = await waitForTask(account, task_id);
      assert.equal(task.status, 'failed');
      assert.match(task.reason, /node work \(failing_tool\) failed: exit code 3/);
      const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`));
      const work = jobs.find((j: any) => j.node_id === 'work');
      assert.equal(work.status, 'failed');
      assert.equal(work.exit_code, 3);
      assert.equal(jobs.find((j: any) => j.node_id === 'save').status, 'cancelled');
      const info = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/${work.job_id}/`));
      assert.equal(await (await fetch(info.Log_downloadURL)).text(), 'about to fail\n');
      assert.deepEqual(leftovers(task_id), []);
    });

    it('stops a running task: the job and its whole process tree are killed, nothing further starts', async () => {
      const account = await server.account();
      // Sleep durations unique to this run, so that other tests' sleeps are never taken for ours.
      const tag = `${process.pid % 1000}${Date.now() % 100000}`;
      const durations = [`300.${tag}1`, `301.${tag}2`, `302.${tag}3`];
      await singleToolWorkflow(account, 'sleepy', {
        cmd_template: `(sleep ${durations[0]}; echo late) & setsid sleep ${durations[1]} & sleep ${durations[2]} && echo done > {{ outputs.out[0].path }}`,
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements: requirements(),
      });
      const ours = () =>
        readdirSync('/proc')
          .filter((p) => /^\d+$/.test(p))
          .filter((p) => {
            try {
              const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8');
              return durations.some((d) => cmdline === `sleep\u0000${d}\u0000`);
            } catch {
              return false;
            }
          });
      const { task_id } = await activate(account, { workflow_name: 'sleepy', workflow_version: 1, parameters: await template(account, 'sleepy') });
      await waitForJob(account, task_id, 'work', 'running');
      for (let i = 0; i < 200 && ours().length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.equal(ours().length, 3, 'the three sleeps of the job are running');
      const stop = await account.api.send('PUT', projectPath(account.name, `tasks/${task_id}/`));
      assert.equal(stop.status, 200);
      const task = await waitForTask(account, task_id, { timeoutMs: 20_000 });
      assert.equal(task.status, 'stopped');
      const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`));
      assert.equal(jobs.find((j: any) => j.node_id === 'work').status, 'cancelled');
      assert.equal(jobs.find((j: any) => j.node_id === 'save').status, 'cancelled');
      assert.deepEqual(ours(), [], 'no sleep of the job survives, not even the setsid one');
      assert.deepEqual(leftovers(task_id), [], 'no container is left');
      // Stopping an ended task is a harmless 200.
      assert.equal((await account.api.send('PUT', projectPath(account.name, `tasks/${task_id}/`))).status, 200);
    });

    it('kills a job that runs past the job timeout, and fails its task saying so', async () => {
      const account = await timed.account();
      await singleToolWorkflow(account, 'sleeper', {
        cmd_template: 'echo started; sleep 60; echo late > {{ outputs.out[0].path }}',
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements: requirements(),
      });
      const { task_id } = await activate(account, { workflow_name: 'sleeper', workflow_version: 1, parameters: await template(account, 'sleeper') });
      const task = await waitForTask(account, task_id, { timeoutMs: 30_000 });
      assert.equal(task.status, 'failed');
      assert.match(task.reason, /node work \(sleeper_tool\) failed: timed out after 2 s/);
      assert.deepEqual(leftovers(task_id), []);
    });

    it("fails a job that uses more memory than its tool's limit, saying it ran out of memory", async () => {
      const account = await server.account();
      // 400 MB held by the command (busybox has no perl: there the shell holds a 400 MB string)
      const hog = container ? `x=$(head -c 419430400 /dev/zero | tr '\\0' a)` : `perl -e '$x = "a" x (400*1024*1024); sleep 1'`;
      await singleToolWorkflow(account, 'hog', {
        cmd_template: `${hog} && echo survived > {{ outputs.out[0].path }}`,
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements: requirements('64m'),
      });
      const { task_id } = await activate(account, { workflow_name: 'hog', workflow_version: 1, parameters: await template(account, 'hog') });
      const task = await waitForTask(account, task_id, { timeoutMs: 30_000 });
      assert.equal(task.status, 'failed');
      assert.match(task.reason, /node work \(hog_tool\) failed: out of memory/);
      assert.deepEqual(leftovers(task_id), []);
    });

    it('shows the digest of the image a job ran in (null on the host sandbox)', async () => {
      const account = await server.account();
      await singleToolWorkflow(account, 'hello', {
        cmd_template: 'echo hello > {{ outputs.out[0].path }}',
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements: requirements(),
      });
      const { task_id } = await activate(account, { workflow_name: 'hello', workflow_version: 1, parameters: await template(account, 'hello') });
      assert.equal((await waitForTask(account, task_id)).status, 'succeeded');
      const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`));
      const work = jobs.find((j: any) => j.node_id === 'work');
      const info = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/${work.job_id}/`));
      const expected = container ? imageDigest(executor.name as 'podman' | 'docker', executor.image) : null;
      assert.equal(work.image_digest, expected);
      assert.equal(info.image_digest, expected);
      assert.equal(jobs.find((j: any) => j.node_id === 'save').image_digest, null, 'a data step runs in no image');
    });
  });
}
