/**
 * A task every job of which is a call-cache hit decided at activation (docs/tasks.md, "Call caching"): it is created
 * succeeded, its hits have no directories of their own (its directory is a link to that of the task it reuses) and
 * serve the logs of the jobs they reuse (through the GeneDock log route and the CLI), and their outputs and logs
 * outlive the task they came from. Through the API and the CLI, with real jobs.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectPath, type TestAccount } from '../helpers/server.js';
import { activate, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, toolId } from '../helpers/workflows.js';
import { cliFixture, requirements, type CliFixture } from '../cli/support.js';

/** first writes its output and a line to each stream; next copies it and writes a line to each stream. */
async function registerChain(account: TestAccount): Promise<void> {
  const out = { out: { type: 'file', formats: 'txt' } };
  await registerTool(account, 'speak', {
    cmd_template: 'echo made > {{ outputs.out[0].path }}; echo "first says hi"; echo "first warns" >&2',
    inputs: {},
    outputs: out,
    requirements,
  });
  await registerTool(account, 'echoback', {
    cmd_template: 'cat {{ inputs.src[0].path }} > {{ outputs.out[0].path }}; echo "next says hi"; echo "next warns" >&2',
    inputs: { src: { type: 'file', formats: ['txt'], required: true } },
    outputs: out,
    requirements,
  });
  const configs = {
    nodelist: [
      { node_id: 'first', app_id: await toolId(account, 'speak', 1), inputs: {}, outputs: { out: [{ enid: 'made' }] } },
      { node_id: 'next', app_id: await toolId(account, 'echoback', 1), inputs: { src: [{ enid: 'made' }] }, outputs: {} },
    ],
  };
  assert.equal((await createWorkflow(account, 'chain', configs)).status, 200);
}

const start = (account: TestAccount) => activate(account, { workflow_name: 'chain', workflow_version: 1, parameters: {} });

async function jobsOf(account: TestAccount, taskId: string): Promise<Record<string, any>> {
  const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`));
  return Object.fromEntries(jobs.map((j: any) => [j.node_id, j]));
}

/** A job's log through its Log_downloadURL (GetJobInfo, then a plain GET), whole or from byte `from` on. */
async function logOf(account: TestAccount, taskId: string, jobId: string, from?: number): Promise<string> {
  const info = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/${jobId}/`));
  assert.notEqual(info.Log_downloadURL, '', `job ${jobId} has a log link`);
  const response = await fetch(info.Log_downloadURL, from === undefined ? {} : { headers: { range: `bytes=${from}-` } });
  assert.equal(response.status, from === undefined ? 200 : 206);
  return response.text();
}

describe('a task created succeeded: every job a hit decided at activation', { timeout: 240_000 }, () => {
  let f: CliFixture;
  let account: TestAccount;
  let firstId: string;
  let first: Record<string, any>;
  before(async () => {
    f = await cliFixture();
    account = f.account;
    await registerChain(account);
    firstId = (await start(account)).task_id;
    const ended = await waitForTask(account, firstId);
    assert.equal(ended.status, 'succeeded', ended.reason);
    first = await jobsOf(account, firstId);
  });
  after(async () => f?.close());

  it('is succeeded as ActivateWorkflow answers, with the events a worker would have recorded, and cached_from and explain as before', async () => {
    const { task_id } = await start(account);
    // Read at once: no worker pass is needed.
    const task = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/`));
    assert.equal(task.status, 'succeeded', task.reason);
    assert.equal(task.reason, 'all 2 jobs succeeded');
    assert.ok(task.startTime && task.endTime, 'it has a start and an end');
    const jobs = await jobsOf(account, task_id);
    for (const node of ['first', 'next']) {
      assert.equal(jobs[node].status, 'succeeded');
      assert.equal(jobs[node].cached_from, first[node].job_id);
    }
    // No directories of its own: every hit reuses a job of the first task at its own node, so the task's directory is a
    // link to the first task's.
    const place = join(f.server.dataDir, 'tasks', task_id);
    assert.ok(lstatSync(place).isSymbolicLink(), 'a link');
    assert.equal(realpathSync(place), realpathSync(join(f.server.dataDir, 'tasks', firstId)), "to its source task's directory");
    const { events } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/events/`));
    assert.deepEqual(
      events.filter((e: any) => e.job_id === null).map((e: any) => [e.from, e.to, e.reason]),
      [
        [null, 'queued', 'activated'],
        ['queued', 'succeeded', 'all 2 jobs succeeded'],
      ],
    );
    assert.deepEqual(
      events.filter((e: any) => e.job_id === jobs.next.job_id).map((e: any) => [e.from, e.to]),
      [[null, 'succeeded']],
    );
    const explained = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/jobs/${jobs.next.job_id}/explain/`));
    assert.deepEqual([explained.cache_hit, explained.cached_from], [true, first.next.job_id]);
    const cli = await f.run(['task', 'explain', task_id, 'next']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, new RegExp(first.next.job_id));
  });

  it("serves a hit's logs as the job it reuses wrote them, through the log route and the CLI, without files of its own", async () => {
    const { task_id } = await start(account);
    const jobs = await jobsOf(account, task_id);
    for (const node of ['first', 'next']) {
      const earlier = await logOf(account, firstId, first[node].job_id);
      assert.match(earlier, new RegExp(`${node} says hi\n`));
      assert.equal(await logOf(account, task_id, jobs[node].job_id), earlier, `${node}: the same bytes`);
      assert.equal(await logOf(account, task_id, jobs[node].job_id, 3), earlier.slice(3), `${node}: a range of them`);
      // Its sources are the previous test's hits, whose directories are links: a link never leads to a link, so these
      // hits have directories of their own, with their outputs and no log files.
      assert.ok(lstatSync(join(f.server.dataDir, 'tasks', task_id, node)).isDirectory());
      assert.equal(existsSync(join(f.server.dataDir, 'tasks', task_id, node, 'stdout.log')), false, 'no log file of its own');
    }
    const logs = await f.run(['task', 'logs', task_id, 'next']);
    assert.equal(logs.status, 0, logs.stderr);
    assert.match(logs.stdout, /next says hi/);
  });

  it('keeps the logs of hits when the task they came from is deleted, and stops and deletes such a task', async () => {
    // A task of its own to delete, so that the other tests' source stays.
    const sourceId = (await start(account)).task_id;
    const source = await jobsOf(account, sourceId);
    const { task_id } = await start(account);
    const jobs = await jobsOf(account, task_id);
    const before = await logOf(account, task_id, jobs.next.job_id);
    const stopped = await account.api.json<any>('PUT', projectPath(account.name, `tasks/${task_id}/`));
    assert.equal(stopped.status, 'succeeded', 'stopping a task that ended is a no-op');
    assert.equal((await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/`))).status, 'succeeded');

    // The hits read from the newest earlier jobs with their keys: the source task's, themselves hits on the first
    // task's jobs. Deleting the source task hands the logs it served over to the later task's jobs.
    for (const node of ['first', 'next']) assert.equal(jobs[node].cached_from, source[node].job_id);
    await account.api.send('DELETE', projectPath(account.name, `tasks/${sourceId}/`));
    assert.equal(await logOf(account, task_id, jobs.next.job_id), before, 'the same bytes after its source task is gone');
    assert.equal(existsSync(join(f.server.dataDir, 'tasks', sourceId)), false);

    await account.api.send('DELETE', projectPath(account.name, `tasks/${task_id}/`));
    const gone = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/`)).catch((error: any) => error);
    assert.equal(gone.status, 404);
    assert.equal(existsSync(join(f.server.dataDir, 'tasks', task_id)), false, 'its files are removed');
    assert.match(await logOf(account, firstId, first.next.job_id), /next says hi/, "the first task's logs are untouched");
    assert.equal(outputOf(f, firstId, 'first'), 'made\n', "and its outputs, which the deleted tasks' links led to");
  });
});

/** The one output file of a job of the chain, as the job's directory has it. */
function outputOf(f: CliFixture, taskId: string, node: string): string {
  const dir = join(f.server.dataDir, 'tasks', taskId, node, 'work', 'outputs', 'out');
  return readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8');
}

describe('the hits of a task created succeeded, once the task they reuse is deleted', { timeout: 240_000 }, () => {
  let f: CliFixture;
  let account: TestAccount;
  before(async () => {
    f = await cliFixture();
    account = f.account;
    await registerChain(account);
  });
  after(async () => f?.close());

  it('take its directories over: the same outputs and logs, intact for later hits, and removed with their own task', async () => {
    const ranId = (await start(account)).task_id;
    assert.equal((await waitForTask(account, ranId)).status, 'succeeded');
    const ran = await jobsOf(account, ranId);
    const hitId = (await start(account)).task_id;
    const hits = await jobsOf(account, hitId);
    assert.ok(lstatSync(join(f.server.dataDir, 'tasks', hitId)).isSymbolicLink(), "a link to the first task's directory");
    const logs = await logOf(account, hitId, hits.next.job_id);
    assert.match(logs, /next says hi/);

    await account.api.send('DELETE', projectPath(account.name, `tasks/${ranId}/`));
    assert.equal(existsSync(join(f.server.dataDir, 'tasks', ranId)), false, 'the deleted task leaves no files');
    assert.ok(lstatSync(join(f.server.dataDir, 'tasks', hitId)).isDirectory(), 'a directory of its own now');
    for (const node of ['first', 'next']) assert.equal(hits[node].cached_from, ran[node].job_id);
    assert.equal(outputOf(f, hitId, 'first'), 'made\n');
    assert.equal(outputOf(f, hitId, 'next'), 'made\n');
    assert.equal(await logOf(account, hitId, hits.next.job_id), logs, 'the same log bytes');

    // Its outputs kept their stamps: a later task's jobs are hits on them (and links to its directories).
    const laterId = (await start(account)).task_id;
    const later = await jobsOf(account, laterId);
    assert.equal((await account.api.json<any>('GET', projectPath(account.name, `tasks/${laterId}/`))).status, 'succeeded');
    for (const node of ['first', 'next']) assert.equal(later[node].cached_from, hits[node].job_id);
    await account.api.send('DELETE', projectPath(account.name, `tasks/${hitId}/`));
    assert.equal(outputOf(f, laterId, 'next'), 'made\n');
    assert.equal(await logOf(account, laterId, later.next.job_id), logs);

    await account.api.send('DELETE', projectPath(account.name, `tasks/${laterId}/`));
    assert.deepEqual(readdirSync(join(f.server.dataDir, 'tasks')), [], 'no files are left');
  });

  it('reuse the job at their own node when several jobs of the earlier task have their key', async () => {
    const configs = {
      nodelist: ['one', 'two', 'three'].map((node_id) => ({
        node_id,
        app_id: `/${account.name}/speak/1`,
        inputs: {},
        outputs: {},
      })),
    };
    assert.equal((await createWorkflow(account, 'triplets', configs)).status, 200);
    const run = () => activate(account, { workflow_name: 'triplets', workflow_version: 1, parameters: {} });
    const ranId = (await run()).task_id;
    assert.equal((await waitForTask(account, ranId)).status, 'succeeded');
    const ran = await jobsOf(account, ranId);
    const { task_id } = await run();
    const jobs = await jobsOf(account, task_id);
    assert.deepEqual(
      Object.keys(jobs).map((node) => [node, jobs[node].cached_from]),
      Object.keys(jobs).map((node) => [node, ran[node].job_id]),
    );
    assert.ok(lstatSync(join(f.server.dataDir, 'tasks', task_id)).isSymbolicLink(), "the task's directory is a link to the earlier task's");
  });
});
