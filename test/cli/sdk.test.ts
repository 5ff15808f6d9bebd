import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client, fillRunParameters, GdApiError, GdConnectionError, isTerminalTask, signing } from '../../src/index.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { requirements } from './support.js';

let server: TestServer;
let alice: TestAccount;
let client: Client;

before(async () => {
  server = await startTestServer({ cpus: 2 });
  alice = await server.account();
  client = new Client({ endpoint: server.url, accessKeyId: alice.accessKeyId, accessKeySecret: alice.accessKeySecret });
});
after(async () => server.close());

/** A fake server that answers with the statuses given, in turn, and records what it received. */
async function scripted(statuses: number[]): Promise<{ url: string; seen: IncomingMessage[]; close: () => Promise<void> }> {
  const seen: IncomingMessage[] = [];
  const http: Server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    const status = statuses[Math.min(seen.length - 1, statuses.length - 1)]!;
    res.writeHead(status, { 'content-type': 'application/json', 'x-gd-requestid': 'a'.repeat(24) });
    res.end(
      status < 400
        ? JSON.stringify({ task_id: 'b'.repeat(24), task_name: 'x', account_name: 'acct', user_name: 'u' })
        : JSON.stringify({
            error_code: status >= 500 ? 'InternalError' : 'InvalidParameter',
            error_message: `failed with ${status}`,
            error_message_chs: '失败',
          }),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as { port: number }).port}`, seen, close: () => new Promise((resolve) => http.close(() => resolve())) };
}

describe('SDK Client', () => {
  it('runs the whole life cycle: tool, workflow, data, task, jobs, logs', async () => {
    const tool = await client.registerTool({
      name: 'sdkcat',
      cmd_template: 'cat {{ inputs.src[0].path }} > {{ outputs.dst[0].path }} && echo copied',
      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
      outputs: { dst: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    assert.deepEqual(tool, { tool_name: 'sdkcat', tool_version: 1 });
    assert.equal(
      (await client.registerTool({ name: 'sdkcat', cmd_template: 'true', outputs: { dst: { type: 'file', formats: 'txt' } }, requirements })).tool_version,
      2,
    );
    const wf = await client.registerWorkflow(
      'sdkwf',
      {
        nodelist: [
          { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
          { node_id: 'cat', app_id: `/${alice.name}/sdkcat/1`, inputs: { src: [{ enid: 'in' }] }, outputs: { dst: [{ enid: 'out' }] } },
          { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'out' } } },
        ],
      },
      { description: 'sdk' },
    );
    assert.deepEqual(wf, { workflow_name: 'sdkwf', workflow_version: 1 });
    assert.equal((await client.listTools()).items.length, 1);
    assert.equal((await client.getToolParameterTemplate('sdkcat', 1)).parameter[0]!.name, 'sdkcat');
    assert.equal((await client.getToolDetails('sdkcat', 1))[0]!.tool_name, 'sdkcat');
    assert.equal((await client.listExecutableWorkflows()).items[0]![0]!.workflow_name, 'sdkwf');
    assert.equal((await client.getWorkflowGraph('sdkwf')).nodes.length, 3);

    const stored = await client.putData('/in/a.txt', Buffer.from('hello\n'));
    assert.equal(stored.name, `${alice.name}:/in/a.txt`);
    assert.deepEqual(
      (await client.listData('/in/')).items.map((i) => i.name),
      [`${alice.name}:/in/a.txt`],
    );

    const template = (await client.getExecutableWorkflow('sdkwf', 1)).parameter;
    const parameter = fillRunParameters(template, { inputs: { load: '/in/a.txt' }, outputs: { save: '/out/a.txt' } });
    assert.deepEqual(parameter.Inputs!.load!.data, [{ ...template.Inputs!.load!.data![0]!, name: '/in/a.txt' }], "the template's enid and property kept");
    assert.equal(template.Inputs!.load!.data![0]!.name, '', 'the template itself is left as it was');
    assert.throws(() => fillRunParameters(template, { inputs: { lod: '/in/a.txt' } }), /the run template has no load node 'lod' \(it has load\)/);
    assert.throws(() => fillRunParameters(template, { outputs: { load: '/x' } }), /no store node 'load' \(it has save\)/);
    const noThreads = /the run template has no parameter 'threads' in node 'cat' \(it has none\)/;
    assert.throws(() => fillRunParameters(template, { parameters: { cat: { threads: 2 } } }), noThreads);
    await client.setRunTemplate('sdkwf', 1, parameter);
    const started = await client.activateWorkflow({ workflow_name: 'sdkwf', workflow_version: 1, task_name: 'sdk_run', parameters: parameter });
    const updates: string[] = [];
    const task = await client.waitForTask(started.task_id, {
      intervalMs: 100,
      withJobs: true,
      onUpdate: (t, jobs) => updates.push(`${t.status}:${jobs?.length}`),
    });
    assert.equal(task.status, 'succeeded', task.reason);
    assert.ok(isTerminalTask(task.status));
    assert.ok(updates.length >= 1 && updates.every((u) => u.endsWith(':3')));
    assert.equal((await client.readData('/out/a.txt')).toString(), 'hello\n');

    const { jobs } = await client.listJobs(started.task_id);
    const cat = jobs.find((j) => j.node_id === 'cat')!;
    assert.match((await client.getJob(started.task_id, cat.job_id)).Log_downloadURL, /^http/);
    assert.equal((await client.getJobCommand(started.task_id, cat.job_id)).cmd, 'cat /var/data/inputs/src/a.txt > /var/data/outputs/dst/a.txt && echo copied');
    assert.equal(await client.getJobLog(started.task_id, cat.job_id, 'stdout'), 'copied\n');
    assert.ok((await client.getTaskEvents(started.task_id)).events.length > 0);
    assert.equal((await client.listTasks({ size: 10 })).task_list[0]!.task_id, started.task_id);
    assert.equal((await client.stopTask(started.task_id)).status, 'succeeded', 'stopping an ended task is harmless');
    await client.deleteTask(started.task_id);
    await client.deleteData('/out/a.txt');
    await client.deleteWorkflow('sdkwf', 1);
    await client.deleteTool('sdkcat', 2);
  });

  it('surfaces errors as GdApiError with status, error_code, both messages and the request id', async () => {
    try {
      await client.getTool('nosuchtool');
      assert.fail('expected an error');
    } catch (error) {
      assert.ok(error instanceof GdApiError);
      assert.equal(error.status, 404);
      assert.equal(error.error_code, 'ToolNotExists');
      assert.equal(error.errorCode, 'ToolNotExists');
      assert.equal(error.error_message, 'Get Tool cannot find anything.');
      assert.ok(error.error_message_chs.length > 0);
      assert.match(error.request_id ?? '', /^[0-9a-f]{24}$/);
      assert.deepEqual(Object.keys(error.toJSON()), ['status', 'error_code', 'error_message', 'error_message_chs', 'request_id']);
    }
    // A key the server does not know: refused (4xx), never retried.
    const stranger = new Client({ endpoint: server.url, accessKeyId: 'NOSUCHKEY', accessKeySecret: 'x', account: alice.name });
    await assert.rejects(stranger.listTasks(), (e: unknown) => e instanceof GdApiError && e.status >= 400 && e.status < 500);
  });

  it('signs with the signing module the server verifies with', async () => {
    const fake = await scripted([200]);
    try {
      const sdk = new Client({ endpoint: fake.url, accessKeyId: 'KEYID', accessKeySecret: 'SECRET', account: 'acct' });
      await sdk.listTasks({ size: 5, from: 10 });
      const req = fake.seen[0]!;
      const expected = signing.authorizationHeader('KEYID', signing.signRequest('SECRET', { method: 'GET', target: req.url!, headers: req.headers }));
      assert.equal(req.headers.authorization, expected);
      assert.equal(req.url, '/accounts/acct/projects/default/tasks/?size=5&from=10');
    } finally {
      await fake.close();
    }
  });

  it('retries 5xx with backoff, never 4xx, and never re-sends a task activation that reached the server', async () => {
    const flaky = await scripted([503, 502, 200]);
    try {
      const sdk = new Client({ endpoint: flaky.url, accessKeyId: 'K', accessKeySecret: 'S', account: 'acct', backoffMs: 1 });
      await sdk.getTask('c'.repeat(24));
      assert.equal(flaky.seen.length, 3, 'two transient failures, then success');
    } finally {
      await flaky.close();
    }
    const refusing = await scripted([400]);
    try {
      const sdk = new Client({ endpoint: refusing.url, accessKeyId: 'K', accessKeySecret: 'S', account: 'acct', backoffMs: 1 });
      await assert.rejects(sdk.getTask('c'.repeat(24)), (e: unknown) => e instanceof GdApiError && e.status === 400 && e.errorMessageChs === '失败');
      assert.equal(refusing.seen.length, 1);
    } finally {
      await refusing.close();
    }
    const failing = await scripted([500, 200]);
    try {
      const sdk = new Client({ endpoint: failing.url, accessKeyId: 'K', accessKeySecret: 'S', account: 'acct', backoffMs: 1 });
      await assert.rejects(sdk.activateWorkflow({ workflow_name: 'wf' }), (e: unknown) => e instanceof GdApiError && e.status === 500);
      assert.equal(failing.seen.length, 1, 'a POST that reached the server may have started the task: not repeated');
    } finally {
      await failing.close();
    }
    const nowhere = new Client({ endpoint: 'http://127.0.0.1:9', accessKeyId: 'K', accessKeySecret: 'S', account: 'acct', backoffMs: 1, retries: 2 });
    await assert.rejects(nowhere.activateWorkflow({ workflow_name: 'wf' }), GdConnectionError);
    await assert.rejects(nowhere.listTasks(), GdConnectionError);
  });
});
