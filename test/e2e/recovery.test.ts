import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { processesWith } from '../helpers/cluster.js';
import { ServedAccount } from '../helpers/process.js';
import { projectPath } from '../helpers/server.js';
import { activate, download, upload, waitForJob, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, toolId } from '../helpers/workflows.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gdflow-recovery-'));
let served: ServedAccount | undefined;

after(async () => {
  await served?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const requirements = { container: { image: 'debian:bookworm' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } };

describe('recovery after SIGKILL', () => {
  it('continues a task after the server is killed mid-run: finished jobs are kept, the running one runs again', async () => {
    served = await ServedAccount.start(dataDir, 'recoverer');
    const { account } = served;
    const marker = `3.${process.pid}${Date.now() % 100000}`;
    await registerTool(account, 'quick', {
      cmd_template: 'tr a-z A-Z < {{ inputs.src[0].path }} > {{ outputs.out[0].path }}',
      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
      outputs: { out: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    await registerTool(account, 'slow', {
      cmd_template: `sleep ${marker} && (cat {{ inputs.src[0].path }}; echo slow done) > {{ outputs.out[0].path }}`,
      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
      outputs: { out: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    const quick = await toolId(account, 'quick', 1);
    const slow = await toolId(account, 'slow', 1);
    await createWorkflow(account, 'crashy', {
      nodelist: [
        { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
        { node_id: 'upper', app_id: quick, inputs: { src: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'a' }] } },
        { node_id: 'wait', app_id: slow, inputs: { src: [{ enid: 'a' }] }, outputs: { out: [{ enid: 'b' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'b' } }, parameters: { name: { value: '/out/result.txt' } } },
      ],
    });
    await upload(account, '/in/words.txt', 'hello world\n');
    const { parameter } = await account.api.json<any>('GET', projectPath('recoverer', 'executable-workflows/crashy/'), { query: { workflow_version: 1 } });
    parameter.Inputs.load.data[0].name = '/in/words.txt';
    const { task_id } = await activate(account, { workflow_name: 'crashy', workflow_version: 1, parameters: parameter });
    const upperBefore = await waitForJob(account, task_id, 'upper', 'succeeded');
    await waitForJob(account, task_id, 'wait', 'running');
    for (let i = 0; i < 100 && processesWith(`sleep\u0000${marker}`).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(processesWith(`sleep\u0000${marker}`).length > 0, 'the slow job is running');

    await served.kill();
    // The sandboxed job dies with the server (bwrap --die-with-parent).
    for (let i = 0; i < 100 && processesWith(`sleep\u0000${marker}`).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(processesWith(`sleep\u0000${marker}`), [], 'no process of the killed job is left');

    await served.restart();
    const task = await waitForTask(account, task_id, { timeoutMs: 60_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    assert.equal(await download(account, '/out/result.txt'), 'HELLO WORLD\nslow done\n');

    const { jobs } = await account.api.json<any>('GET', projectPath('recoverer', `tasks/${task_id}/jobs/`));
    const upper = jobs.find((j: any) => j.node_id === 'upper');
    const wait = jobs.find((j: any) => j.node_id === 'wait');
    assert.equal(upper.attempt, 1, 'the finished job was not run again');
    assert.equal(upper.endTime, upperBefore.endTime);
    assert.equal(wait.attempt, 2, 'the interrupted job ran again from scratch');
    const { events } = await account.api.json<any>('GET', projectPath('recoverer', `tasks/${task_id}/events/`));
    const requeued = events.find((e: any) => e.job_id === wait.job_id && e.from === 'running' && e.to === 'queued');
    assert.match(requeued.reason, /runs again from scratch: its worker was lost while attempt 1 was running/);
  });
});
