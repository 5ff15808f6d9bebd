import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { cliFixture, commandWorkflow, copyToolYaml, copyWorkflowYaml, untilJobRuns, writeFile, type CliFixture } from './support.js';

let f: CliFixture;
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n';

before(async () => {
  f = await cliFixture();
});
after(async () => f.close());

describe('gdflow data', () => {
  it('puts, lists, gets and removes data items', async () => {
    const local = writeFile(f.dir, 'a.fastq', READS);
    const put = await f.run(['data', 'put', local, '/reads/a.fastq', '--json']);
    assert.equal(put.status, 0, put.stderr);
    assert.deepEqual(put.json(), [{ name: `${f.account.name}:/reads/a.fastq`, size: READS.length, md5: createHash('md5').update(READS).digest('hex') }]);
    writeFile(f.dir, 'b.fastq', READS);
    writeFile(f.dir, 'c.fastq', READS);
    const many = await f.run(['data', 'put', join(f.dir, 'b.fastq'), join(f.dir, 'c.fastq'), '/reads/more/']);
    assert.equal(many.status, 0, many.stderr);
    assert.match(many.stdout, /b\.fastq -> \S+:\/reads\/more\/b\.fastq \(24 B, md5 [0-9a-f]{32}\)/);
    assert.equal((await f.run(['data', 'put', local, join(f.dir, 'b.fastq'), '/reads/notadir'])).status, 2, 'several files need a directory name');

    const list = await f.run(['data', 'ls', '/reads/', '--json']);
    assert.deepEqual(
      list.json().items.map((i: any) => i.name),
      ['a.fastq', 'more/b.fastq', 'more/c.fastq'].map((p) => `${f.account.name}:/reads/${p}`),
    );
    const table = await f.run(['data', 'ls', '/reads/more/']);
    assert.match(table.stdout, /^NAME\s+SIZE\s+MODIFIED$/m);
    assert.match(table.stdout, /:\/reads\/more\/c\.fastq\s+24 B\s+\d{4}-/);

    const stdout = await f.run(['data', 'get', '/reads/a.fastq', '-']);
    assert.equal(stdout.stdout, READS);
    const toFile = await f.run(['data', 'get', `${f.account.name}:/reads/more/b.fastq`]);
    assert.equal(toFile.status, 0, toFile.stderr);
    assert.equal(readFileSync(join(f.dir, 'b.fastq'), 'utf8'), READS);

    const rm = await f.run(['data', 'rm', '/reads/more/b.fastq', '/reads/more/c.fastq']);
    assert.equal(rm.status, 0, rm.stderr);
    assert.deepEqual((await f.run(['data', 'ls', '/reads/more/', '--json'])).json().items, []);
    const missing = await f.run(['data', 'get', '/reads/more/b.fastq', join(f.dir, 'nothing.fastq')]);
    assert.equal(missing.status, 1);
    assert.ok(!existsSync(join(f.dir, 'nothing.fastq')) && !existsSync(join(f.dir, 'nothing.fastq.gdflow-part')), 'no partial file is left');
    const badName = await f.run(['data', 'rm', 'no-slash']);
    assert.equal(badName.status, 2, 'a malformed data name is a usage error');
  });

  it('streams a large file up and down intact', async () => {
    const big = randomBytes(20 * 1024 * 1024 + 123);
    writeFileSync(join(f.dir, 'big.bin'), big);
    const put = await f.run(['data', 'put', join(f.dir, 'big.bin'), '/big/big.bin', '--json']);
    assert.equal(put.status, 0, put.stderr);
    assert.equal(put.json()[0].size, big.length);
    assert.equal(put.json()[0].md5, createHash('md5').update(big).digest('hex'));
    const get = await f.run(['data', 'get', '/big/big.bin', join(f.dir, 'copy.bin')]);
    assert.equal(get.status, 0, get.stderr);
    assert.ok(readFileSync(join(f.dir, 'copy.bin')).equals(big));
  });
});

describe('gdflow workflow run and gdflow task', () => {
  before(async () => {
    assert.equal((await f.run(['tool', 'create', '-f', writeFile(f.dir, 'copy-tool.yml', copyToolYaml('copyreads'))])).status, 0);
    assert.equal((await f.run(['workflow', 'create', '-f', writeFile(f.dir, 'copy-wf.yml', copyWorkflowYaml(f.account.name))])).status, 0);
    assert.equal((await f.run(['data', 'put', writeFile(f.dir, 'in.fastq', READS), '/reads/in.fastq'])).status, 0);
  });

  it('runs a workflow from a parameters file, then shows the task, its jobs, command and logs; task wait exits 0', async () => {
    const template = parse((await f.run(['workflow', 'getparam', 'copywf'])).stdout);
    template.name = 'first_run';
    template.Inputs.load_reads.data[0].name = '/reads/in.fastq';
    template.Outputs.save.data[0].name = '/results/first.fastq';
    template.Parameters.copy.parameters.label.value = 'from-cli';
    const params = writeFile(f.dir, 'params.yml', stringify(template));
    const run = await f.run(['workflow', 'run', 'copywf', '-p', params, '--json']);
    assert.equal(run.status, 0, run.stderr);
    const { task_id, task_name } = run.json();
    assert.match(task_id, /^[0-9a-f]{24}$/);
    assert.equal(task_name, 'first_run');

    const wait = await f.run(['task', 'wait', task_id, '--interval', '0.2']);
    assert.equal(wait.status, 0, wait.stderr);
    assert.match(wait.stdout, new RegExp(`task first_run \\(${task_id}\\) succeeded after \\d+s: 3/3 nodes done`));
    // Progress lines: nodes done / total and the jobs running.
    assert.match(wait.stderr, /first_run: succeeded 3\/3 nodes done; running: -/);

    const get = await f.run(['task', 'get', task_id]);
    assert.match(get.stdout, /^status:\s+succeeded$/m);
    assert.match(get.stdout, /^progress:\s+3\/3 nodes done/m);
    assert.equal((await f.run(['task', 'get', task_id, '--json'])).json().status, 'succeeded');

    const ls = await f.run(['task', 'ls']);
    assert.match(ls.stdout, new RegExp(`^${task_id}\\s+first_run\\s+copywf v1\\s+succeeded\\s+3/3`, 'm'));
    assert.ok((await f.run(['task', 'ls', '--json', '--status', 'succeeded'])).json().task_list.some((t: any) => t.task_id === task_id));
    // The filters are the server's: the total counts the filtered list, not the page shown.
    const filtered = (await f.run(['task', 'ls', '--json', '--status', 'failed,succeeded', '--name', 'FIRST_R'])).json();
    assert.deepEqual([filtered.task_list.map((t: any) => t.task_id), filtered.total], [[task_id], 1]);

    const jobs = await f.run(['task', 'jobs', task_id, '--json']);
    assert.deepEqual(
      jobs.json().map((j: any) => [j.node_id, j.status]),
      [
        ['load_reads', 'succeeded'],
        ['copy', 'succeeded'],
        ['save', 'succeeded'],
      ],
    );
    assert.match((await f.run(['task', 'jobs', task_id])).stdout, /^copy\s+copyreads\s+succeeded\s+0\s+1/m);

    const cmd = await f.run(['task', 'cmd', task_id, 'copy']);
    assert.equal(cmd.stdout.trim(), 'cp /var/data/inputs/reads/in.fastq /var/data/outputs/out/first.fastq # from-cli t=2');
    const byJobId = await f.run(['task', 'cmd', task_id, jobs.json()[1].job_id, '--json']);
    assert.equal(byJobId.json().cmd, cmd.stdout.trim());
    assert.equal((await f.run(['task', 'cmd', task_id, 'nosuchnode'])).status, 1);

    const logs = await f.run(['task', 'logs', task_id]);
    assert.equal(logs.status, 0, logs.stderr);
    assert.match(logs.stdout, /==> copy \(succeeded\) <==/);
    assert.equal((await f.run(['data', 'get', '/results/first.fastq', '-'])).stdout, READS);
  });

  it('task explain says why a job was or was not a cache hit; task rerun reuses what it can', async () => {
    const runWith = async (name: string, label: string) => {
      const template = parse((await f.run(['workflow', 'getparam', 'copywf'])).stdout);
      template.name = name;
      template.Inputs.load_reads.data[0].name = '/reads/in.fastq';
      template.Outputs.save.data[0].name = '/results/cached.fastq';
      template.Parameters.copy.parameters.label.value = label;
      const run = await f.run(['workflow', 'run', 'copywf', '-p', writeFile(f.dir, `${name}.yml`, stringify(template)), '--wait', '--json']);
      assert.equal(run.status, 0, run.stderr);
      const taskId = run.json().task_id as string;
      const copy = (await f.run(['task', 'jobs', taskId, '--json'])).json().find((j: any) => j.node_id === 'copy');
      return { taskId, copy };
    };
    const first = await runWith('cache_a', 'one');
    const second = await runWith('cache_b', 'one');
    assert.equal(second.copy.cached_from, first.copy.job_id);
    const hit = await f.run(['task', 'explain', second.copy.job_id]);
    assert.equal(hit.status, 0, hit.stderr);
    assert.match(
      hit.stdout,
      new RegExp(`a cache hit: the outputs of job ${first.copy.job_id} \\(GeneDock tool copyreads, of task ${first.taskId} cache_a\\) were reused`),
    );
    assert.match(hit.stdout, new RegExp(`reused: job ${first.copy.job_id}, a GeneDock tool \\(task ${first.taskId}\\)`));
    const third = await runWith('cache_c', 'two');
    assert.equal(third.copy.cached_from, null);
    const miss = await f.run(['task', 'explain', third.taskId, 'copy', '--json']);
    assert.deepEqual(
      miss.json().differences.map((d: any) => [d.part, d.name ?? null]),
      [['command', null]],
    );
    assert.match((await f.run(['task', 'explain', third.taskId, 'copy'])).stdout, /the command differs at word 4: "# two t=2", was "# one t=2"/);
    assert.equal((await f.run(['task', 'explain', 'notajob'])).status, 2);

    const rerun = await f.run(['task', 'rerun', third.taskId, '--json']);
    assert.equal(rerun.status, 0, rerun.stderr);
    const again = rerun.json().task_id as string;
    assert.equal((await f.run(['task', 'wait', again, '--interval', '0.2'])).status, 0);
    const copy = (await f.run(['task', 'jobs', again, '--json'])).json().find((j: any) => j.node_id === 'copy');
    assert.equal(copy.cached_from, third.copy.job_id, "the rerun reuses its reference task's job");
  });

  it('runs with --wait; task wait exits 1 for a failed task and names the failed job', async () => {
    await commandWorkflow(f, 'failing', 'echo about to fail >&2; exit 3');
    const run = await f.run(['workflow', 'run', 'failing', '--wait', '--interval', '0.2', '--name', 'fail_run']);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /task fail_run \(([0-9a-f]{24})\) failed after/);
    const taskId = /\(([0-9a-f]{24})\)/.exec(run.stdout)![1]!;
    assert.match(run.stdout, /job work \(failing_tool\) failed: exit code 3\n/, 'the exit code is said once');

    // Every state change of the task and its jobs, oldest first, with reasons.
    const events = await f.run(['task', 'events', taskId]);
    assert.equal(events.status, 0, events.stderr);
    assert.match(events.stdout, /^TIME\s+OF\s+FROM\s+TO\s+REASON/);
    assert.match(events.stdout, /\swork\s+running\s+failed\s+exit code 3$/m);
    assert.match(events.stdout.trimEnd().split('\n').pop()!, /\stask\s+running\s+failed\s/);
    const eventsJson = (await f.run(['task', 'events', taskId, '--json'])).json();
    assert.equal(eventsJson[0].job_id, null);
    assert.equal(eventsJson.at(-1).to, 'failed');

    const wait = await f.run(['task', 'wait', taskId, '--json']);
    assert.equal(wait.status, 1);
    assert.equal(wait.json().status, 'failed');
    assert.match(wait.json().reason, /exit code 3/);
    const logs = await f.run(['task', 'logs', taskId, 'work', '--stream', 'stderr']);
    assert.equal(logs.stdout, 'about to fail\n');
  });

  it('stops and deletes a task; task wait on a stopped task exits 1', async () => {
    await commandWorkflow(f, 'sleepy', 'sleep 300 && echo done > {{ outputs.out[0].path }}');
    const run = await f.run(['workflow', 'run', 'sleepy', '--json']);
    assert.equal(run.status, 0, run.stderr);
    const { task_id } = run.json();
    await untilJobRuns(f, task_id, 'work');
    // The stop waits for the worker to kill the job and prints the state the task ended in.
    const stop = await f.run(['task', 'stop', task_id]);
    assert.equal(stop.status, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`^task sleepy_1_\\d{14}_${task_id} \\(${task_id}\\) stopped after \\d+s: 0/2 nodes done; jobs: .*cancelled`, 'm'));
    const again = await f.run(['task', 'stop', task_id]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /had already stopped: nothing to stop/);
    const wait = await f.run(['task', 'wait', task_id, '--interval', '0.2', '--timeout', '30']);
    assert.equal(wait.status, 1);
    assert.match(wait.stdout, /sleepy_1_\d{14}_([0-9a-f]{24}) \(\1\) stopped after/);

    const del = await f.run(['task', 'delete', task_id]);
    assert.equal(del.status, 0, del.stderr);
    const gone = await f.run(['task', 'get', task_id]);
    assert.equal(gone.status, 1);
    assert.match(gone.stderr, new RegExp(`task '${task_id}' not found in ${f.account.name}/default.*\\[404 TaskNotFound, request [0-9a-f]{24}\\]`));
  });
});
