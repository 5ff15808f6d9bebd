import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { cliFixture, copyToolYaml, copyWorkflowYaml, writeFile, type CliFixture } from './support.js';

/**
 * A workflow published under the public account, used by another account with nothing but its own key: listed in a
 * section of its own, read, and run from the CLI with --owner public; and the run options (--input, --output,
 * --param) and "not found" messages that make a first run work without a template file.
 */

let f: CliFixture;
/** The CLI environment of the public account's publisher (the user's CLI never gets this key). */
let publisher: NodeJS.ProcessEnv;
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n';

before(async () => {
  f = await cliFixture();
  const key = await f.server.services.accounts.createKey('public');
  publisher = { GDFLOW_ACCESS_KEY_ID: key.id, GDFLOW_ACCESS_KEY_SECRET: key.secret };
  const publish = async (args: string[]) => {
    const result = await f.run(args, { env: publisher });
    assert.equal(result.status, 0, result.stderr);
  };
  await publish(['tool', 'create', '-f', writeFile(f.dir, 'pubcopy.yml', copyToolYaml('pubcopy'))]);
  await publish(['workflow', 'create', '-f', writeFile(f.dir, 'pubwf.yml', copyWorkflowYaml('public', 'pubwf', 'pubcopy'))]);
  await publish(['data', 'put', writeFile(f.dir, 'reads.fastq', READS), '/demo/reads.fastq']);
  // The user's own things.
  assert.equal((await f.run(['tool', 'create', '-f', writeFile(f.dir, 'own.yml', copyToolYaml('copyreads'))])).status, 0);
  assert.equal((await f.run(['workflow', 'create', '-f', writeFile(f.dir, 'own-wf.yml', copyWorkflowYaml(f.account.name))])).status, 0);
  assert.equal((await f.run(['data', 'put', writeFile(f.dir, 'mine.fastq', READS), '/reads/mine.fastq'])).status, 0);
});
after(async () => f.close());

describe('public workflows from the CLI', () => {
  it("tool ls and workflow ls show the caller's project, then the public one in its own section; --no-public and --owner show one", async () => {
    assert.notEqual(f.env.GDFLOW_ACCESS_KEY_ID, publisher.GDFLOW_ACCESS_KEY_ID, "the user's CLI signs with the user's own key");
    const tools = await f.run(['tool', 'ls']);
    assert.equal(tools.status, 0, tools.stderr);
    assert.match(tools.stdout, new RegExp(`^tools of ${f.account.name}/default:\\nNAME\\s+VERSION.*\\ncopyreads\\s+1\\s+checked`, 'm'));
    const heading = 'public tools \\(public/default: every account can use them, with --owner public\\):';
    assert.match(tools.stdout, new RegExp(`\\n\\n${heading}\\nNAME\\s+VERSION.*\\npubcopy\\s+1\\s+checked`));
    const own = await f.run(['tool', 'ls', '--no-public']);
    assert.ok(!own.stdout.includes('pubcopy') && !own.stdout.includes('public tools'), own.stdout);
    assert.match(own.stdout, /^NAME\s+VERSION/);
    const onlyPublic = await f.run(['tool', 'ls', '--owner', 'public', '--json']);
    assert.deepEqual(
      onlyPublic.json().map((t: any) => [t.tool_name, t.owner]),
      [['pubcopy', 'public/default']],
    );
    const both = await f.run(['tool', 'ls', '--json']);
    assert.deepEqual(
      both.json().map((t: any) => [t.tool_name, t.owner]),
      [
        ['copyreads', `${f.account.name}/default`],
        ['pubcopy', 'public/default'],
      ],
    );

    const workflows = await f.run(['workflow', 'ls', '--executable']);
    assert.equal(workflows.status, 0, workflows.stderr);
    assert.match(workflows.stdout, new RegExp(`^workflows of ${f.account.name}/default:\\nNAME.*\\ncopywf\\s+1\\s+checked`, 'm'));
    assert.match(workflows.stdout, /\n\npublic workflows \(public\/default: every account can use them, with --owner public\):\nNAME.*\npubwf\s+1\s+checked/);
    assert.ok(!(await f.run(['workflow', 'ls', '--no-public'])).stdout.includes('pubwf'));
    assert.deepEqual(
      (await f.run(['workflow', 'ls', '--owner', 'public', '--json'])).json().map((w: any) => w.workflow_name),
      ['pubwf'],
    );
    assert.equal((await f.run(['workflow', 'ls', '--owner', 'not an account'])).status, 2, 'a malformed --owner is a usage error');
  });

  it('tool get, workflow graph and workflow getparam read a public workflow with --owner public; without it they say where it is', async () => {
    const tool = await f.run(['tool', 'get', 'pubcopy', '--owner', 'public']);
    assert.equal(tool.status, 0, tool.stderr);
    assert.equal(parse(tool.stdout).app.name, 'pubcopy');
    const graph = await f.run(['workflow', 'graph', 'pubwf', '--owner', 'public']);
    assert.equal(graph.status, 0, graph.stderr);
    assert.match(graph.stdout, /^workflow pubwf version 1: 3 nodes, 2 links$/m);
    assert.match(graph.stdout, /^\s+1\s+copy\s+tool\s+pubcopy v1/m);
    assert.equal(parse((await f.run(['workflow', 'get', 'pubwf', '--owner', 'public'])).stdout).workflow.name, 'pubwf');

    const out = join(f.dir, 'pub-template.yml');
    const getparam = await f.run(['workflow', 'getparam', 'pubwf', '--owner', 'public', '-o', out]);
    assert.equal(getparam.status, 0, getparam.stderr);
    const text = readFileSync(out, 'utf8');
    assert.match(text.split('\n')[0]!, /^# workflow: pubwf owner public /, 'the first line names the owner, for batch and run -p');
    assert.deepEqual(Object.keys(parse(text).Inputs), ['load_reads']);

    const withoutOwner = await f.run(['workflow', 'getparam', 'pubwf']);
    assert.equal(withoutOwner.status, 1);
    const where = `workflow 'pubwf' not found in ${f.account.name}/default \\(there are: copywf\\)`;
    assert.match(withoutOwner.stderr, new RegExp(`${where}; the public account has a workflow 'pubwf': add --owner public`));
    const toolWithout = await f.run(['tool', 'get', 'pubcopy']);
    assert.match(toolWithout.stderr, /the public account has a tool 'pubcopy': add --owner public/);
  });

  it("runs a public workflow with the user's own key: --owner public, --input from public data, --output and --param; the output is the user's", async () => {
    const run = await f.run([
      'workflow',
      'run',
      'pubwf',
      '--owner',
      'public',
      '--input',
      'load_reads=public:/demo/reads.fastq',
      '--output',
      'save=/results/from-public.fastq',
      '--param',
      'copy.label=public-run',
      '--param',
      'copy.threads=3',
      '--name',
      'public_run',
      '--wait',
      '--interval',
      '0.2',
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^task public_run \([0-9a-f]{24}\) succeeded after \d+s: 3\/3 nodes done$/m);
    const taskId = /\(([0-9a-f]{24})\)/.exec(run.stdout)![1]!;
    const task = await f.client.getTask(taskId);
    assert.equal(task.workflow_name, 'pubwf');
    const cmd = await f.run(['task', 'cmd', taskId, 'copy']);
    assert.equal(cmd.stdout.trim(), 'cp /var/data/inputs/reads/reads.fastq /var/data/outputs/out/from-public.fastq # public-run t=3');
    assert.equal((await f.run(['data', 'get', '/results/from-public.fastq', '-'])).stdout, READS);
  });

  it('batch and workflow run -p take the owner from the first line getparam -o wrote', async () => {
    const template = join(f.dir, 'pub-batch.yml');
    assert.equal((await f.run(['workflow', 'getparam', 'pubwf', '--owner', 'public', '-o', template])).status, 0);
    const [origin, ...rest] = readFileSync(template, 'utf8').split('\n');
    const doc = parse(rest.join('\n'));
    doc.name = '{$sample}_pub';
    doc.Inputs.load_reads.data[0].name = '{$reads}';
    writeFile(f.dir, 'pub-batch.yml', `${origin}\n${stringify(doc)}`);
    const sheet = writeFile(f.dir, 'pub-samples.tsv', 'sample\treads\nsa\tpublic:/demo/reads.fastq\nsb\t/reads/mine.fastq\n');
    const batch = await f.run(['batch', template, sheet, '--wait', '--interval', '0.2']);
    assert.equal(batch.status, 0, batch.stderr);
    assert.match(batch.stdout, /2 tasks: 2 succeeded/);
    // A -p template of the public workflow needs no --owner either; options fill it in.
    const run = await f.run(['workflow', 'run', 'pubwf', '-p', join(f.dir, 'pub-template.yml'), '--input', 'load_reads=/reads/mine.fastq', '--json']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal((await f.client.getTask(run.json().task_id)).workflow_name, 'pubwf');
  });
});

describe('workflow run --input/--output/--param', () => {
  it('refuses unknown nodes and parameters naming the nearest, and values of the wrong type, all at once and before any task starts (exit 2)', async () => {
    const before = (await f.client.listTasks()).total;
    const run = await f.run([
      'workflow',
      'run',
      'copywf',
      '--input',
      'lod_reads=/reads/mine.fastq',
      '--output',
      'sav=/results/x.fastq',
      '--param',
      'copy.thread=3',
      '--param',
      'cpy.label=x',
      '--param',
      'copy.threads=many',
      '--param',
      'copy.threads=99',
      '--param',
      'nodot=1',
      '--input',
      'load_reads',
      '--input',
      'load_reads=no-slash',
    ]);
    assert.equal(run.status, 2, run.stderr);
    const lines = run.stderr.split('\n');
    assert.match(run.stderr, /the run options do not fit the workflow:/);
    const input = "  --input 'lod_reads=/reads/mine.fastq': the workflow has no input (loaddata) node 'lod_reads'; did you mean 'load_reads'?";
    assert.ok(lines.includes(input), run.stderr);
    assert.ok(lines.includes("  --output 'sav=/results/x.fastq': the workflow has no output (storedata) node 'sav'; did you mean 'save'?"), run.stderr);
    assert.ok(lines.includes("  --param 'copy.thread=3': node 'copy' has no parameter 'thread'; did you mean 'threads'?"), run.stderr);
    assert.ok(lines.includes("  --param 'cpy.label=x': the workflow has no tool node 'cpy'; did you mean 'copy'?"), run.stderr);
    assert.ok(lines.includes('  --param \'copy.threads=many\': copy.threads must be a number, not "many"'), run.stderr);
    assert.ok(lines.includes("  --param 'copy.threads=99': copy.threads is 99, above the maximum 16"), run.stderr);
    assert.ok(
      lines.some((l) => l.startsWith("  --param 'nodot=1': expected NODE.PARAM=VALUE")),
      run.stderr,
    );
    assert.ok(
      lines.some((l) => l.startsWith("  --input 'load_reads': expected NODE=DATA_NAME")),
      run.stderr,
    );
    assert.ok(
      lines.some((l) => l.startsWith('  --input \'load_reads=no-slash\': data name "no-slash"')),
      run.stderr,
    );
    assert.equal((await f.client.listTasks()).total, before, 'no task was started');
    const help = await f.run(['workflow', 'run', '--help']);
    for (const option of ['--input <node=data>', '--output <node=data>', '--param <node.param=value>', '--owner <account>', '--wait']) {
      assert.ok(help.stdout.includes(option), `${option} in --help`);
    }
  });

  it('fills several items of one input in order, over a -p file, and runs', async () => {
    const params = writeFile(f.dir, 'own-params.yml', 'name: from_options\n');
    const options = ['-i', 'load_reads=/reads/mine.fastq', '--param', 'copy.label=filled'];
    const run = await f.run(['workflow', 'run', 'copywf', '-p', params, ...options, '--wait', '--json', '--interval', '0.2']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.json().task_name, 'from_options');
    const cmd = await f.run(['task', 'cmd', run.json().task_id, 'copy']);
    assert.match(cmd.stdout, /cp \/var\/data\/inputs\/reads\/mine\.fastq .* # filled t=2/);
    // The node takes at most one item: the server says so.
    const two = await f.run(['workflow', 'run', 'copywf', '-i', 'load_reads=/reads/mine.fastq', '-i', 'load_reads=public:/demo/reads.fastq']);
    assert.equal(two.status, 1);
    assert.match(two.stderr, /Inputs\.load_reads\.data has 2 items; at most 1 are allowed/);
  });
});

describe('not found: the thing, where, and the nearest name', () => {
  it('names a mistyped tool, workflow, data item and node, suggesting the nearest', async () => {
    const tool = await f.run(['tool', 'get', 'copyread']);
    assert.equal(tool.status, 1);
    const answer = '\\[404 ToolNotExists, request [0-9a-f]{24}\\]';
    assert.match(tool.stderr, new RegExp(`^gdflow: tool 'copyread' not found in ${f.account.name}/default; did you mean 'copyreads'\\? ${answer}$`, 'm'));
    const workflow = await f.run(['workflow', 'graph', 'cpywf']);
    assert.equal(workflow.status, 1);
    assert.match(workflow.stderr, /workflow 'cpywf' not found in \S+\/default; did you mean 'copywf'\?/);
    const run = await f.run(['workflow', 'run', 'copywff', '-i', 'load_reads=/reads/mine.fastq']);
    assert.match(run.stderr, /workflow 'copywff' not found in \S+; did you mean 'copywf'\?/);
    const publicTypo = await f.run(['workflow', 'getparam', 'pubfw', '--owner', 'public']);
    assert.match(publicTypo.stderr, /workflow 'pubfw' not found in public\/default; did you mean 'pubwf'\?/);
    const data = await f.run(['data', 'get', '/reads/mine.fq']);
    assert.equal(data.status, 1);
    const account = f.account.name;
    const suggestion = `did you mean '${account}:/reads/mine.fastq'\\?`;
    assert.match(data.stderr, new RegExp(`data item '${account}:/reads/mine.fq' not found in ${account}:/reads/; ${suggestion}`));
    const rm = await f.run(['data', 'rm', '/reads/mines.fastq']);
    assert.match(rm.stderr, /did you mean '\S+:\/reads\/mine\.fastq'\?/);

    const task = await f.run(['workflow', 'run', 'copywf', '-i', 'load_reads=/reads/mine.fastq', '--json']);
    const taskId = task.json().task_id as string;
    const node = await f.run(['task', 'logs', taskId, 'cpy']);
    assert.equal(node.status, 1);
    assert.match(node.stderr, new RegExp(`job or node 'cpy' not found in task ${taskId}; did you mean 'copy'\\?`));
  });
});
