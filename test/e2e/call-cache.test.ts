/**
 * Call caching, explain, resume and intermediate cleanup (docs/tasks.md), through the API with real jobs: a pipeline
 * load reads → trim → align (← load reference) → stats → store, whose tools copy and concatenate their inputs.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Transport } from '../../src/client/transport.js';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/server/start.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, download, upload, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, pipelineConfigs, registerPipeline, registerTool, template, TOOLS, toolId } from '../helpers/workflows.js';

interface Run {
  task_id: string;
  jobs: Record<string, any>;
}

async function jobsOf(account: TestAccount, taskId: string): Promise<Record<string, any>> {
  const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`));
  return Object.fromEntries(jobs.map((j: any) => [j.node_id, j]));
}

/** Run the pipeline to its end (it must succeed) with the reads and reference given, and these parameter and Property values. */
async function runPipeline(
  account: TestAccount,
  options: { workflow?: string; quality?: number; property?: Record<string, unknown>; report?: string } = {},
): Promise<Run> {
  const workflow = options.workflow ?? 'pipe';
  const parameters = await template(account, workflow);
  parameters.Inputs.load_reads.data = [{ name: '/in/reads.fastq' }];
  parameters.Inputs.load_ref.data = [{ name: '/in/ref.fa' }];
  parameters.Outputs.store_bam.data = [{ name: '/out/aligned.bam' }];
  if (options.report) parameters.Outputs.store_report.data = [{ name: options.report }];
  if (options.quality !== undefined) parameters.Parameters.trim_node.parameters.quality.value = options.quality;
  if (options.property) parameters.Property = { ...parameters.Property, ...options.property };
  const { task_id } = await activate(account, { workflow_name: workflow, workflow_version: 1, parameters });
  const task = await waitForTask(account, task_id);
  assert.equal(task.status, 'succeeded', task.reason);
  return { task_id, jobs: await jobsOf(account, task_id) };
}

const TOOL_NODES = ['trim_node', 'align_node', 'stats_node'];
/** The tool nodes that ran (were not cache hits). */
const ran = (run: Run) => TOOL_NODES.filter((node) => run.jobs[node].cached_from === null);

async function explain(account: TestAccount, run: Run, node: string): Promise<any> {
  return account.api.json<any>('GET', projectPath(account.name, `tasks/${run.task_id}/jobs/${run.jobs[node].job_id}/explain/`));
}

/** The ids of version 1 of the pipeline's tools. */
async function versionOnes(account: TestAccount) {
  return { trim: await toolId(account, 'trim', 1), align: await toolId(account, 'align', 1), stats: await toolId(account, 'stats', 1) };
}

async function setUp(account: TestAccount): Promise<void> {
  await upload(account, '/in/reads.fastq', '@r1\nACGT\n+\nIIII\n');
  await upload(account, '/in/ref.fa', '>chr1\nACGTACGT\n');
  await createWorkflow(account, 'pipe', pipelineConfigs(await registerPipeline(account)));
}

describe('call caching', { timeout: 240_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ cpus: 2 });
  });
  after(async () => server?.close());

  it('an identical second task is served entirely from the cache, with byte-identical outputs', async () => {
    const account = await server.account();
    await setUp(account);
    const first = await runPipeline(account, { report: '/out/first.txt' });
    assert.deepEqual(ran(first), TOOL_NODES, 'the first task runs every tool job');
    const firstBam = await download(account, '/out/aligned.bam');
    const firstReport = await download(account, '/out/first.txt');

    const second = await runPipeline(account, { report: '/out/first.txt' });
    assert.deepEqual(ran(second), [], 'no tool job of the second task runs');
    for (const node of TOOL_NODES) {
      assert.equal(second.jobs[node].cached_from, first.jobs[node].job_id, `${node} reuses the first task's job`);
      assert.match(second.jobs[node].reason, /from the call cache/);
      const info = await account.api.json<any>('GET', projectPath(account.name, `tasks/${second.task_id}/jobs/${second.jobs[node].job_id}/`));
      assert.equal(info.cached_from, first.jobs[node].job_id, 'job info (gdpy get_job_info) carries cached_from');
    }
    assert.equal(await download(account, '/out/aligned.bam'), firstBam);
    assert.equal(await download(account, '/out/first.txt'), firstReport);
    // The outputs are links or copies: the first task's files are all still there.
    const work = (taskId: string, node: string) => join(server.dataDir, 'tasks', taskId, node, 'work', 'outputs');
    assert.ok(existsSync(join(work(first.task_id, 'align_node'), 'bam', 'aligned.bam')));
    assert.ok(existsSync(join(work(second.task_id, 'align_node'), 'bam', 'aligned.bam')));
    const hit = await explain(account, second, 'align_node');
    assert.equal(hit.cache_hit, true);
    assert.equal(hit.cached_from, first.jobs.align_node.job_id);
  });

  it('the hits of a task whose keys are known when it is activated are written with it, before any worker pass', async () => {
    const account = await server.account();
    await setUp(account);
    const first = await runPipeline(account);
    const parameters = await template(account, 'pipe');
    parameters.Inputs.load_reads.data = [{ name: '/in/reads.fastq' }];
    parameters.Inputs.load_ref.data = [{ name: '/in/ref.fa' }];
    parameters.Outputs.store_bam.data = [{ name: '/out/aligned.bam' }];
    const { task_id } = await activate(account, { workflow_name: 'pipe', workflow_version: 1, parameters });
    // Read as ActivateWorkflow answers: the tool jobs are hits already, and the load steps they read done.
    const jobs = await jobsOf(account, task_id);
    for (const node of TOOL_NODES) {
      assert.equal(jobs[node].status, 'succeeded', `${node}: ${jobs[node].reason}`);
      assert.equal(jobs[node].cached_from, first.jobs[node].job_id);
      assert.equal(jobs[node].reason, `from the call cache: the outputs of job ${first.jobs[node].job_id}`);
    }
    for (const node of ['load_reads', 'load_ref']) assert.deepEqual([jobs[node].status, jobs[node].reason], ['succeeded', '1 item(s) present']);
    const { events } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task_id}/events/`));
    const created = events.filter((e: any) => e.job_id === jobs.align_node.job_id);
    assert.deepEqual(
      created.map((e: any) => [e.from, e.to]),
      [[null, 'succeeded']],
    );
    const task = await waitForTask(account, task_id);
    assert.equal(task.status, 'succeeded', task.reason);
    const after = await jobsOf(account, task_id);
    assert.equal(after.store_bam.status, 'succeeded', 'the store step after them runs on the worker');
    const hit = await explain(account, { task_id, jobs: after }, 'stats_node');
    const source = await explain(account, first, 'stats_node');
    assert.deepEqual(
      [hit.cache_hit, hit.cached_from, hit.cache_key],
      [true, first.jobs.stats_node.job_id, source.cache_key],
      'the same key as the job it reuses',
    );
  });

  it('a changed input file makes exactly the jobs that depend on it run, and explain names the input', async () => {
    const account = await server.account();
    await setUp(account);
    const first = await runPipeline(account);
    await upload(account, '/in/ref.fa', '>chr1\nTTTTTTTT\n');
    const second = await runPipeline(account);
    assert.deepEqual(ran(second), ['align_node', 'stats_node'], 'trim does not read the reference: it is reused');
    const why = await explain(account, second, 'align_node');
    assert.equal(why.cache_hit, false);
    assert.equal(why.nearest.job_id, first.jobs.align_node.job_id);
    assert.deepEqual(
      why.differences.map((d: any) => [d.part, d.name]),
      [['input', '/var/data/inputs/reference/ref.fa']],
    );
    assert.match(why.summary, /input \/var\/data\/inputs\/reference\/ref\.fa changed/);
    const stats = await explain(account, second, 'stats_node');
    assert.deepEqual(
      stats.differences.map((d: any) => d.part),
      ['input'],
      "stats' input (align's output) changed with it",
    );
  });

  it('a changed parameter makes its job and those after it run, and explain names the parameter', async () => {
    const account = await server.account();
    await setUp(account);
    await runPipeline(account, { quality: 25 });
    const second = await runPipeline(account, { quality: 30 });
    assert.deepEqual(ran(second), TOOL_NODES);
    const why = await explain(account, second, 'trim_node');
    // The key is made of the work (docs/tasks.md, "One cache for every language"): the parameter is in the command.
    assert.deepEqual(
      why.differences.map((d: any) => [d.part, d.name ?? null]),
      [['command', null]],
    );
    assert.match(why.summary, /the command differs at word 4: "# q=30", was "# q=25"/);
    // align's input is trim's output, known by trim's key, which changed.
    const align = await explain(account, second, 'align_node');
    assert.deepEqual(
      align.differences.map((d: any) => [d.part, d.name]),
      [['input', '/var/data/inputs/reads/trimmed.fastq']],
    );
  });

  it('a new tool version that does the same work reuses the old one; one whose command changed runs, and explain says how', async () => {
    const account = await server.account();
    await setUp(account);
    const ids = await versionOnes(account);
    const first = await runPipeline(account);
    // stats version 2, the same definition: the same work, whatever the version is called.
    assert.equal(await registerTool(account, 'stats', TOOLS.stats!), 2);
    await createWorkflow(account, 'pipe2', pipelineConfigs({ ...ids, stats: await toolId(account, 'stats', 2) }));
    const second = await runPipeline(account, { workflow: 'pipe2' });
    assert.deepEqual(ran(second), []);
    assert.equal(second.jobs.stats_node.cached_from, first.jobs.stats_node.job_id);
    // Version 3 counts lines, not bytes.
    assert.equal(await registerTool(account, 'stats', { ...TOOLS.stats!, cmd_template: 'wc -l {{ inputs.bam[0].path }} > {{ outputs.report[0].path }}' }), 3);
    await createWorkflow(account, 'pipe3', pipelineConfigs({ ...ids, stats: await toolId(account, 'stats', 3) }));
    const third = await runPipeline(account, { workflow: 'pipe3' });
    assert.deepEqual(ran(third), ['stats_node']);
    const why = await explain(account, third, 'stats_node');
    assert.deepEqual(
      why.differences.map((d: any) => d.part),
      ['command'],
    );
    assert.match(why.summary, /the command differs at word 2: "-l", was "-c"/);
  });

  it('caching can be turned off by a task (Property.call_caching) and by a tool (call_caching: false)', async () => {
    const account = await server.account();
    await setUp(account);
    await runPipeline(account);
    const off = await runPipeline(account, { property: { call_caching: false } });
    assert.deepEqual(ran(off), TOOL_NODES);
    assert.match((await explain(account, off, 'trim_node')).summary, /call caching was off/);

    await registerTool(account, 'fresh', { ...TOOLS.stats, call_caching: false });
    const ids = await versionOnes(account);
    await createWorkflow(account, 'pipefresh', pipelineConfigs({ ...ids, stats: await toolId(account, 'fresh', 1) }));
    await runPipeline(account, { workflow: 'pipefresh' });
    const again = await runPipeline(account, { workflow: 'pipefresh' });
    assert.deepEqual(ran(again), ['stats_node'], 'the tool that says call_caching: false always runs');
  });

  it('a task that asks for cleanup loses its intermediate outputs, keeps its stored ones, and is no cache source after', async () => {
    const account = await server.account();
    await setUp(account);
    const cleaned = await runPipeline(account, { property: { cleanup_intermediates: true }, report: '/out/cleaned.txt' });
    const work = (node: string) => join(server.dataDir, 'tasks', cleaned.task_id, node, 'work');
    for (let i = 0; i < 100 && TOOL_NODES.some((node) => existsSync(work(node))); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const node of TOOL_NODES) assert.equal(existsSync(work(node)), false, `${node}'s working directory is removed`);
    assert.ok(existsSync(join(server.dataDir, 'tasks', cleaned.task_id, 'trim_node', 'stderr.log')), 'logs stay');
    assert.match(await download(account, '/out/cleaned.txt'), /aligned\.bam/, 'the stored report stays');
    assert.ok((await download(account, '/out/aligned.bam')).includes('ACGTACGT'), 'the stored bam stays');
    const next = await runPipeline(account);
    assert.deepEqual(ran(next), TOOL_NODES, 'cleaned outputs are no longer hits');
  });

  it('the invalid Property values are refused, naming the member', async () => {
    const account = await server.account();
    await setUp(account);
    const parameters = await template(account, 'pipe');
    parameters.Inputs.load_reads.data = [{ name: '/in/reads.fastq' }];
    parameters.Inputs.load_ref.data = [{ name: '/in/ref.fa' }];
    parameters.Property.call_caching = 'yes';
    const refused = (pattern: RegExp) => (error: any) => error.status === 400 && pattern.test(error.message);
    const post = () => account.api.send('POST', projectPath(account.name, 'tasks/'), { json: { workflow_name: 'pipe', workflow_version: 1, parameters } });
    await assert.rejects(post(), refused(/parameters\.Property\.call_caching must be true or false/));
    parameters.Property.call_caching = true;
    parameters.Property.reference_task = [{ id: 'ffffffffffffffffffffffff' }];
    await assert.rejects(post(), refused(/parameters\.Property\.reference_task\[0\]\.id 'ffffffffffffffffffffffff' is not a task of account/));
  });
});

describe('resume from a reference task, with the call cache off on the server', { timeout: 240_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ cpus: 2, callCaching: 'off' });
  });
  after(async () => server?.close());

  it('a failed task rerun from it runs only the failed job and those after it', async () => {
    const account = await server.account();
    await upload(account, '/in/reads.fastq', '@r1\nACGT\n+\nIIII\n');
    await upload(account, '/in/ref.fa', '>chr1\nACGTACGT\n');
    await upload(account, '/in/rules.txt', 'not yet\n');
    const ids = await registerPipeline(account);
    // stats fails until the rules it reads say ok.
    await registerTool(account, 'gate', {
      ...TOOLS.stats,
      cmd_template: 'grep -q ok {{ inputs.rules[0].path }} && wc -c {{ inputs.bam[0].path }} > {{ outputs.report[0].path }}',
      inputs: { bam: { type: 'file', formats: ['bam'], required: true }, rules: { type: 'file', formats: ['txt'], required: true } },
    });
    const configs = pipelineConfigs({ ...ids, stats: await toolId(account, 'gate', 1) });
    configs.nodelist.push({
      node_id: 'load_rules',
      app_id: '55128c58f6f4067d63b956b5',
      name: 'loaddata',
      alias: 'rules',
      inputs: null,
      outputs: { data: { enid: 'rules_link' } },
      parameters: null,
    });
    (configs.nodelist.find((n: any) => n.node_id === 'stats_node') as any).inputs.rules = [{ enid: 'rules_link' }];
    await createWorkflow(account, 'gated', configs);
    const parameters = await template(account, 'gated');
    parameters.Inputs.load_reads.data = [{ name: '/in/reads.fastq' }];
    parameters.Inputs.load_ref.data = [{ name: '/in/ref.fa' }];
    parameters.Inputs.load_rules.data = [{ name: '/in/rules.txt' }];
    const { task_id } = await activate(account, { workflow_name: 'gated', workflow_version: 1, parameters });
    const failed = await waitForTask(account, task_id);
    assert.equal(failed.status, 'failed');
    const before = await jobsOf(account, task_id);

    // Without a reference, nothing is reused on this server.
    const { task_id: plain } = await activate(account, { workflow_name: 'gated', workflow_version: 1, parameters });
    assert.equal((await waitForTask(account, plain)).status, 'failed');
    assert.equal((await jobsOf(account, plain)).trim_node.cached_from, null);

    await upload(account, '/in/rules.txt', 'ok\n');
    const rerun = await account.api.json<any>('POST', projectPath(account.name, `tasks/${task_id}/rerun/`));
    const done = await waitForTask(account, rerun.task_id);
    assert.equal(done.status, 'succeeded', done.reason);
    const after = await jobsOf(account, rerun.task_id);
    assert.equal(after.trim_node.cached_from, before.trim_node.job_id);
    assert.equal(after.align_node.cached_from, before.align_node.job_id);
    assert.equal(after.stats_node.cached_from, null, 'the failed job runs');
    assert.match(await download(account, '/results/report.txt'), /^\d+ \/var\/data\/inputs\/bam\/\S+\.bam\n$/);
  });
});

describe('the call cache across a restart and across workers', { timeout: 240_000 }, () => {
  let first: TestServer;
  let second: Awaited<ReturnType<typeof startServer>> | undefined;
  before(async () => {
    first = await startTestServer({ cpus: 2 });
  });
  after(async () => {
    await second?.close();
    if (first) rmSync(first.dataDir, { recursive: true, force: true });
  });

  it("a second server on the same database and data root (another worker) reuses the first one's jobs", async () => {
    const account = await first.account();
    await setUp(account);
    const original = await runPipeline(account);
    second = await startServer(loadConfig({ env: {}, flags: { port: 0, dataDir: first.dataDir, logLevel: 'silent', database: first.database, cpus: 2 } }));
    await first.server.close();
    const moved: TestAccount = {
      ...account,
      api: new Transport({ endpoint: second.url, credentials: { accessKeyId: account.accessKeyId, accessKeySecret: account.accessKeySecret }, retries: 0 }),
    };
    const again = await runPipeline(moved);
    assert.deepEqual(ran(again), []);
    assert.equal(again.jobs.align_node.cached_from, original.jobs.align_node.job_id);
  });
});
