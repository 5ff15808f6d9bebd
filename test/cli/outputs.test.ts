/**
 * `gdflow task outputs` and the producer column of `gdflow data ls` (issue 22, item 11), the built CLI against a
 * real server running real jobs: a succeeded task's stored items with sizes, states, the node and job that wrote
 * each; a failed task's marked partial, and what it did not store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { cliFixture, copyToolYaml, copyWorkflowYaml, writeFile, type CliFixture } from './support.js';

let f: CliFixture;
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n';

before(async () => {
  f = await cliFixture();
  assert.equal((await f.run(['tool', 'create', '-f', writeFile(f.dir, 'tool.yml', copyToolYaml())])).status, 0);
  assert.equal((await f.run(['workflow', 'create', '-f', writeFile(f.dir, 'wf.yml', copyWorkflowYaml(f.account.name))])).status, 0);
  // Two results, one of them from a node that fails after a while.
  const failing = `app:
  name: late_failure
  cmd_template: 'echo some > {{ outputs.out[0].path }}; sleep 2; exit 5'
  outputs: {out: {type: file, formats: txt}}
  requirements: {container: {image: 'debian:bookworm', type: docker}, resources: {cpu: 1, mem: 256m, disk: 256m}}
`;
  assert.equal((await f.run(['tool', 'create', '-f', writeFile(f.dir, 'failing.yml', failing)])).status, 0);
  const workflow = `workflow:
  name: halfway
  nodelist:
    - {node_id: load_reads, app_id: loaddata, outputs: {data: {enid: reads}}}
    - {node_id: copy, app_id: /${f.account.name}/copyreads/1, inputs: {reads: [{enid: reads}]}, outputs: {out: [{enid: copied}]}}
    - {node_id: late, app_id: /${f.account.name}/late_failure/1, outputs: {out: [{enid: late_out}]}}
    - {node_id: save, app_id: storedata, inputs: {data: {enid: copied}}}
    - {node_id: save_late, app_id: storedata, inputs: {data: {enid: late_out}}}
`;
  assert.equal((await f.run(['workflow', 'create', '-f', writeFile(f.dir, 'halfway.yml', workflow)])).status, 0);
  assert.equal((await f.run(['data', 'put', writeFile(f.dir, 'in.fastq', READS), '/reads/in.fastq'])).status, 0);
});
after(async () => f.close());

async function run(workflow: string, name: string): Promise<string> {
  const template = parse((await f.run(['workflow', 'getparam', workflow])).stdout);
  template.name = name;
  template.Inputs.load_reads.data[0].name = '/reads/in.fastq';
  template.Outputs.save.data[0].name = `/results/${name}.fastq`;
  if (template.Outputs.save_late) template.Outputs.save_late.data[0].name = `/results/${name}.txt`;
  const started = await f.run(['workflow', 'run', workflow, '-p', writeFile(f.dir, `${name}.yml`, stringify(template)), '--wait', '--json']);
  return started.json().task_id as string;
}

describe('gdflow task outputs', () => {
  it("lists a task's stored items: name, size, state, the node and output that wrote each, its store step and job", async () => {
    const taskId = await run('copywf', 'out_ok');
    const jobs = (await f.run(['task', 'jobs', taskId, '--json'])).json();
    const copy = jobs.find((j: any) => j.node_id === 'copy').job_id;
    const table = await f.run(['task', 'outputs', taskId]);
    assert.equal(table.status, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0]!, /^NAME +SIZE +STATE +NODE +STORE STEP +JOB$/);
    assert.match(lines[1]!, new RegExp(`^${f.account.name}:/results/out_ok\\.fastq +${READS.length} B +stored +copy\\.out +save +${copy}$`));
    assert.match(table.stderr, /download one: gdflow data get NAME/);
    const json = (await f.run(['task', 'outputs', taskId, '--json'])).json();
    assert.equal(json.partial, false);
    const rows = json.outputs.map((o: any) => [o.name, o.state, o.size, o.job_id]);
    assert.deepEqual(rows, [[`${f.account.name}:/results/out_ok.fastq`, 'stored', READS.length, copy]]);
    // The data list says which task and node produced the item.
    const ls = await f.run(['data', 'ls', '/results/out_ok.fastq']);
    assert.match(ls.stdout, /^NAME +SIZE +MODIFIED +PRODUCED BY$/m);
    assert.match(ls.stdout, new RegExp(`:/results/out_ok\\.fastq +${READS.length} B +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +task out_ok, node copy$`, 'm'));
    assert.equal((await f.run(['data', 'ls', '/reads/', '--json'])).json().items[0].produced_by, null, 'an upload');
    assert.doesNotMatch((await f.run(['data', 'ls', '/reads/'])).stdout, /PRODUCED BY/, 'no such column where no item is a task output');
  });

  it("marks a failed task's items partial and says what it did not store", async () => {
    const taskId = await run('halfway', 'out_bad');
    const table = await f.run(['task', 'outputs', taskId]);
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /:\/results\/out_bad\.fastq +24 B +stored \(partial\) +copy\.out +save /);
    assert.match(table.stdout, /:\/results\/out_bad\.txt +- +not stored +late\.out +save_late +\S+$/m);
    assert.match(table.stderr, /task out_bad failed: its 1 stored item\(s\) are partial outputs/);
    const ls = await f.run(['data', 'ls', '/results/out_bad.fastq']);
    assert.match(ls.stdout, /task out_bad, node copy \(partial: the task failed\)$/m);
  });

  it('fails for a task that does not exist, naming it', async () => {
    const missing = await f.run(['task', 'outputs', '0123456789abcdef01234567']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /0123456789abcdef01234567/);
  });
});
