/**
 * `gdflow serve --executor podman` (and docker where a daemon runs) end to end: jobs in their tools' images,
 * a job that keeps running across a SIGKILL of the server and is adopted by the restarted one (not run again),
 * and images that cannot be had. (A tool without an image cannot be registered through the API any more; the
 * executor's test runs such a job on the host sandbox.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Transport } from '../../src/client/transport.js';
import { CONTAINER_KINDS, containerState, ensureTinyImage, gdflowContainers, imageDigest, skipWithoutRuntime, TINY_IMAGE } from '../helpers/containers.js';
import { runCli, startServerProcess, waitForExit, type ServerChild } from '../helpers/process.js';
import { projectPath, type TestAccount } from '../helpers/server.js';
import { activate, download, upload, waitForJob, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, singleToolWorkflow, template, toolId } from '../helpers/workflows.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const kind of CONTAINER_KINDS) {
  describe(`gdflow serve --executor ${kind}`, { skip: skipWithoutRuntime(kind), timeout: 180_000 }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), `gdflow-${kind}-e2e-`));
    let server: ServerChild | undefined;
    let account: TestAccount;
    let key: { access_key_id: string; access_key_secret: string };
    const requirements = (image = TINY_IMAGE) => ({ container: { image, type: 'docker' }, resources: { cpu: 1, mem: '128m', disk: '64m', network: false } });

    const start = async () => {
      server = await startServerProcess(dataDir, ['--executor', kind, '--cpus', '2']);
      if (!key) {
        const created = runCli(['admin', 'create-account', `${kind}user`, '--data-dir', dataDir, '--json']);
        assert.equal(created.status, 0, created.stderr);
        key = JSON.parse(created.stdout) as typeof key;
      }
      account = {
        name: `${kind}user`,
        accessKeyId: key.access_key_id,
        accessKeySecret: key.access_key_secret,
        api: new Transport({ endpoint: server.url, credentials: { accessKeyId: key.access_key_id, accessKeySecret: key.access_key_secret }, retries: 0 }),
      };
    };

    after(async () => {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGTERM');
        await waitForExit(server.child);
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps a job running across a SIGKILL of the server; the restarted server adopts its container instead of running it again', async () => {
      ensureTinyImage(kind);
      await start();
      await registerTool(account, 'slow', {
        // Runs until the test puts a file in its working directory: a fixed run time could be over before the checks
        // that the container outlives its server, on a loaded machine.
        cmd_template:
          'echo started >> /var/data/runs.log; while [ ! -e /var/data/release ]; do sleep 0.1; done; (cat {{ inputs.src[0].path }}; echo slow done) > {{ outputs.out[0].path }}',
        inputs: { src: { type: 'file', formats: ['txt'], required: true } },
        outputs: { out: { type: 'file', formats: 'txt', required: true } },
        requirements: requirements(),
      });
      await createWorkflow(account, 'outlive', {
        nodelist: [
          { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
          { node_id: 'wait', app_id: await toolId(account, 'slow', 1), inputs: { src: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'b' }] } },
          { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'b' } }, parameters: { name: { value: '/out/outlived.txt' } } },
        ],
      });
      await upload(account, '/in/words.txt', 'hello\n');
      const parameters = await template(account, 'outlive');
      parameters.Inputs.load.data[0].name = '/in/words.txt';
      const { task_id } = await activate(account, { workflow_name: 'outlive', workflow_version: 1, parameters });
      const running = await waitForJob(account, task_id, 'wait', 'running');
      const name = `gdflow-${running.job_id}`;
      for (let i = 0; i < 100 && containerState(kind, name)?.status !== 'running'; i++) await sleep(50);
      const before = containerState(kind, name);
      assert.equal(before?.status, 'running', 'the job runs in its container');

      server!.child.kill('SIGKILL');
      await waitForExit(server!.child);
      await sleep(500);
      const meanwhile = containerState(kind, name);
      assert.equal(meanwhile?.status, 'running', 'the container runs on without its server');
      assert.equal(meanwhile?.id, before.id);

      await start();
      writeFileSync(join(dataDir, 'tasks', task_id, 'wait', 'work', 'release'), '');
      const task = await waitForTask(account, task_id, { timeoutMs: 60_000 });
      assert.equal(task.status, 'succeeded', task.reason);
      assert.equal(await download(account, '/out/outlived.txt'), 'hello\nslow done\n');
      const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`));
      const wait = jobs.find((j: any) => j.node_id === 'wait');
      assert.equal(wait.attempt, 1, 'not run again');
      assert.equal(wait.image_digest, imageDigest(kind, TINY_IMAGE));
      const { events } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/events/`));
      assert.deepEqual(
        events.filter((e: any) => e.job_id === wait.job_id).map((e: any) => e.to),
        ['queued', 'running', 'succeeded'],
        'never requeued',
      );
      assert.deepEqual(gdflowContainers(kind, task_id), [], 'its container is removed after its end');
    });

    it('fails a job whose image is not here and cannot be pulled, at once, naming the image and the error', async () => {
      if (!server || server.child.exitCode !== null) await start();
      await singleToolWorkflow(account, 'noimage', {
        cmd_template: 'echo never > {{ outputs.out[0].path }}',
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements: requirements('localhost/gdflow-no-such-image:1'),
      });
      const { task_id } = await activate(account, { workflow_name: 'noimage', workflow_version: 1, parameters: await template(account, 'noimage') });
      const task = await waitForTask(account, task_id, { timeoutMs: 30_000 });
      assert.equal(task.status, 'failed');
      assert.match(task.reason, /node work \(noimage_tool\) failed: image localhost\/gdflow-no-such-image:1 could not be pulled: .+/);
      const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`));
      assert.equal(jobs.find((j: any) => j.node_id === 'work').image_digest, null);
    });

    it('says a job waits for its image to be pulled while the pull lasts; stopped, it waits no more', async () => {
      if (!server || server.child.exitCode !== null) await start();
      // A registry that takes connections and never answers: the runtime's pull of an image from it hangs.
      const sockets = new Set<Socket>();
      const registry = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
      const image = `127.0.0.1:${(registry.address() as AddressInfo).port}/gdflow/never:1`;
      try {
        const outputs = { out: { type: 'file', formats: 'txt' } };
        await singleToolWorkflow(account, 'pulling', { cmd_template: 'echo x > {{ outputs.out[0].path }}', outputs, requirements: requirements(image) });
        const { task_id } = await activate(account, { workflow_name: 'pulling', workflow_version: 1, parameters: await template(account, 'pulling') });
        const jobs = async () => (await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/`))).jobs as any[];
        const work = async () => (await jobs()).find((j) => j.node_id === 'work');
        const pulling = `waiting for its image ${image} to be pulled`;
        // The wait is said as the pull begins, before the runtime (its own process) has reached the registry.
        let job = await work();
        const seen = () => job.waiting_for === pulling && sockets.size > 0;
        for (const deadline = Date.now() + 20_000; !seen() && Date.now() < deadline; await sleep(100)) job = await work();
        assert.equal(job.waiting_for, `waiting for its image ${image} to be pulled`, JSON.stringify(job));
        assert.equal(job.status, 'queued');
        assert.ok(sockets.size > 0, 'the runtime is at the registry');
        await account.api.send('PUT', projectPath(account.name, `tasks/${task_id}/`));
        assert.equal((await waitForTask(account, task_id, { timeoutMs: 30_000 })).status, 'stopped');
        job = await work();
        assert.equal(job.status, 'cancelled');
        assert.equal(job.waiting_for, null);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => registry.close(resolve));
      }
    });
  });
}
