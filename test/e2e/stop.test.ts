/**
 * One stop (docs/tasks.md, "States"): the API stops a task no worker holds itself, and the worker stops the tasks it
 * holds, with the same rule (src/domain/tasks/rules/task-rules.ts, stopTask). Through a real server: the states, the
 * reasons and the events of both are the table's, and the jobs that did not run read the same either way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, waitForJob, waitForTask } from '../helpers/tasks.js';
import { TOOLS, createWorkflow, registerTool, template, toolId } from '../helpers/workflows.js';

let server: TestServer;
let account: TestAccount;
const requirements = TOOLS.stats!.requirements;

before(async () => {
  server = await startTestServer({ cpus: 2 });
  account = await server.account();
  // A chain: first (runs until killed) -> second -> store.
  const out = { out: { type: 'file', formats: 'txt' } };
  await registerTool(account, 'slow', { cmd_template: 'sleep 600; echo x > {{ outputs.out[0].path }}', outputs: out, requirements });
  const input = { in: { type: 'file', formats: ['txt'], required: true } };
  await registerTool(account, 'copy', { cmd_template: 'cat {{ inputs.in[0].path }} > {{ outputs.out[0].path }}', inputs: input, outputs: out, requirements });
  const slow = await toolId(account, 'slow', 1);
  const copy = await toolId(account, 'copy', 1);
  await createWorkflow(account, 'chain', {
    nodelist: [
      { node_id: 'first', app_id: slow, outputs: { out: [{ enid: 'a' }] } },
      { node_id: 'second', app_id: copy, inputs: { in: { enid: 'a' } }, outputs: { out: [{ enid: 'b' }] } },
      { node_id: 'keep', app_id: 'storedata', inputs: { data: { enid: 'b' } } },
    ],
  });
});
after(async () => server.close());

async function start(schedule?: number): Promise<string> {
  const parameters = await template(account, 'chain');
  parameters.Outputs.keep.data[0].name = `/chain/${Date.now()}.txt`;
  if (schedule !== undefined) parameters.Conditions = { schedule: String(schedule) };
  return (await activate(account, { workflow_name: 'chain', workflow_version: 1, parameters })).task_id;
}

const stop = (taskId: string) => account.api.json<{ task_id: string; status: string }>('PUT', projectPath(account.name, `tasks/${taskId}/`));
const jobsOf = async (taskId: string) => (await account.api.json<{ jobs: any[] }>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`))).jobs;
type TaskEvents = { events: Array<{ job_id: string | null; from: string | null; to: string; reason: string }> };
const eventsOf = async (taskId: string) => (await account.api.json<TaskEvents>('GET', projectPath(account.name, `tasks/${taskId}/events/`))).events;

describe('one stop for the API and the worker', () => {
  it('the API stops a task no worker holds (scheduled) at once: its jobs cancelled, the task stopped, by the same rule', async () => {
    const taskId = await start(Math.ceil(Date.now() / 1000) + 3600);
    const answer = await stop(taskId);
    assert.equal(answer.status, 'stopped');
    const task = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/`));
    assert.equal(task.status, 'stopped');
    assert.equal(task.reason, 'stopped by request');
    const jobs = await jobsOf(taskId);
    assert.deepEqual(
      jobs.map((j) => [j.node_id, j.status, j.reason]),
      [
        ['first', 'cancelled', 'the task was stopped'],
        ['second', 'cancelled', 'the task was stopped'],
        ['keep', 'cancelled', 'the task was stopped'],
      ],
    );
    const events = await eventsOf(taskId);
    const taskEvents = events.filter((e) => e.job_id === null && e.from !== null).map((e) => [e.from, e.to, e.reason]);
    assert.deepEqual(taskEvents, [['scheduled', 'stopped', 'stopped by request']]);
  });

  it('the worker stops a task it holds: the running job killed, the others cancelled as the API does, stopping then stopped', async () => {
    const taskId = await start();
    await waitForJob(account, taskId, 'first', 'running');
    await stop(taskId);
    const task = await waitForTask(account, taskId);
    assert.equal(task.status, 'stopped');
    assert.equal(task.reason, 'stopped by request');
    const jobs = await jobsOf(taskId);
    assert.deepEqual(
      jobs.map((j) => [j.node_id, j.status, j.reason]),
      [
        ['first', 'cancelled', 'killed: the task was stopped'],
        ['second', 'cancelled', 'the task was stopped'],
        ['keep', 'cancelled', 'the task was stopped'],
      ],
    );
    const taskEvents = (await eventsOf(taskId)).filter((e) => e.job_id === null && e.from !== null).map((e) => [e.from, e.to, e.reason]);
    assert.deepEqual(taskEvents, [
      ['queued', 'running', 'first job started'],
      ['running', 'stopping', 'stop requested'],
      ['stopping', 'stopped', 'stopped by request'],
    ]);
  });
});
