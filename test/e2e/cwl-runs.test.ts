/**
 * CWL runs through a real server over HTTP (docs/cwl.md, "Running CWL"): packed documents posted to cwl/runs/ with
 * inputs uploaded through the data routes, run by the engine's CWL resolver as deferred jobs on the bwrap executor,
 * their outputs read back through GET cwl/runs/<task>/ and the data routes. With GDFLOW_TEST_STORE=postgres (npm run
 * test:postgres) the same runs go through PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { getCwlRun, jobsOf, readOutput, runCwl, sayEachWord, uploadFile, waitForCwlRun } from '../helpers/cwl-runs.js';
import { rejectsWith } from '../helpers/assert-api.js';
import { download, upload, waitForJob } from '../helpers/tasks.js';

let server: TestServer;
let alice: TestAccount;

before(async () => {
  server = await startTestServer({ cpus: 2 });
  alice = await server.account();
});
after(async () => server.close());

/** A CommandLineTool that sorts the lines of its input into a file of its choosing, and counts them on stdout. */
const sortTool = {
  cwlVersion: 'v1.2',
  class: 'CommandLineTool',
  baseCommand: ['sh', '-c', 'sort "$0" > "$1"; wc -l < "$0"'],
  inputs: {
    input: { type: 'File', inputBinding: { position: 1 } },
    name: { type: 'string', default: 'sorted.txt', inputBinding: { position: 2 } },
  },
  stdout: 'count.txt',
  outputs: {
    sorted: { type: 'File', outputBinding: { glob: '$(inputs.name)' } },
    count: { type: 'stdout' },
  },
};

/** echo's word to out.txt. */
const echoTool = {
  class: 'CommandLineTool',
  baseCommand: 'echo',
  inputs: { word: { type: 'string', inputBinding: {} } },
  stdout: 'out.txt',
  outputs: { out: 'stdout' },
};

describe('CWL runs', () => {
  it('a CommandLineTool: inputs from the data store, outputs in cwl/runs/<task>/ with size and checksum', async () => {
    const input = await uploadFile(alice, '/cwl/inputs/t1/lines.txt', 'c\na\nb\n');
    const started = await runCwl(alice, { document: sortTool, job: { input } });
    assert.match(started.task_id, /^[0-9a-f]{24}$/);
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(run.reason, null);
    const { sorted, count } = run.outputs!;
    assert.equal(sorted.class, 'File');
    assert.equal(sorted.basename, 'sorted.txt');
    assert.equal(sorted.location, `gdflow:cwl/runs/${started.task_id}/sorted.txt`);
    assert.equal(sorted.size, 6);
    assert.equal(sorted.checksum, `sha1$${createHash('sha1').update('a\nb\nc\n').digest('hex')}`);
    assert.equal(await readOutput(alice, sorted), 'a\nb\nc\n');
    assert.equal((await readOutput(alice, count)).trim(), '3');
    const jobs = await jobsOf(alice, started.task_id);
    assert.equal(jobs.get('main').status, 'succeeded');
  });

  it('gdflow: locations are percent-encoded as file: URIs are: a name with a blank and a # goes in and comes out', async () => {
    await upload(alice, '/cwl/inputs/names/my lines #1.txt', 'b\na\n');
    const input = { class: 'File', location: 'gdflow:cwl/inputs/names/my%20lines%20%231.txt' };
    const started = await runCwl(alice, { document: sortTool, job: { input, name: 'sorted #1.txt' } });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(run.outputs!.sorted.basename, 'sorted #1.txt');
    assert.equal(run.outputs!.sorted.location, `gdflow:cwl/runs/${started.task_id}/sorted%20%231.txt`);
    assert.equal(await download(alice, `/cwl/runs/${started.task_id}/sorted #1.txt`), 'a\nb\n');
  });

  it('a workflow with a scatter: one job per element, the outputs gathered in order', async () => {
    const wf = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      requirements: { ScatterFeatureRequirement: {} },
      inputs: { words: 'string[]' },
      outputs: { echoed: { type: 'File[]', outputSource: 'say/out' } },
      steps: { say: sayEachWord('echo') },
    };
    const started = await runCwl(alice, { document: wf, job: { words: ['one', 'two', 'three'] } });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    const echoed = run.outputs!.echoed as Array<{ location: string; basename: string }>;
    assert.deepEqual(await Promise.all(echoed.map((f) => readOutput(alice, f))), ['one\n', 'two\n', 'three\n']);
    assert.deepEqual(
      echoed.map((f) => f.basename),
      ['said.txt', 'said.txt_2', 'said.txt_3'],
    );
    const jobs = await jobsOf(alice, started.task_id);
    assert.deepEqual([...jobs.keys()].sort(), ['main', 'main.say', 'main.say@0', 'main.say@1', 'main.say@2']);
    for (const job of jobs.values()) assert.equal(job.status, 'succeeded', `${job.node_id}: ${job.reason}`);
    assert.equal(jobs.get('main.say@1').alias, 'main/say[1]');
  });

  it('a step whose when is false is skipped: its outputs are null and the workflow goes on', async () => {
    const wf = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      requirements: { InlineJavascriptRequirement: {} },
      inputs: { go: 'boolean', word: 'string' },
      outputs: {
        maybe: { type: 'File?', outputSource: 'conditional/out' },
        always: { type: 'File', outputSource: 'unconditional/out' },
      },
      steps: {
        conditional: { run: echoTool, when: '$(inputs.go)', in: { go: 'go', word: 'word' }, out: ['out'] },
        unconditional: { run: echoTool, in: { word: 'word' }, out: ['out'] },
      },
    };
    const started = await runCwl(alice, { document: wf, job: { go: false, word: 'hello' } });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(run.outputs!.maybe, null);
    assert.equal(await readOutput(alice, run.outputs!.always), 'hello\n');
    const jobs = await jobsOf(alice, started.task_id);
    assert.equal(jobs.get('main.conditional').status, 'skipped');
    assert.equal(jobs.get('main.unconditional').status, 'succeeded');
    const task = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${started.task_id}/`));
    assert.equal(task.status, 'succeeded');
    assert.equal(task.progress.done, task.progress.total, 'a skipped job counts as done');
  });

  it('an ExpressionTool is evaluated in the sandbox: its value, and a File it makes, are its outputs', async () => {
    const tool = {
      cwlVersion: 'v1.2',
      class: 'ExpressionTool',
      requirements: { InlineJavascriptRequirement: {} },
      inputs: { n: 'int' },
      outputs: { doubled: 'int', note: 'File' },
      expression: '${ return {doubled: inputs.n * 2, note: {class: "File", basename: "note.txt", contents: "n=" + inputs.n}}; }',
    };
    const started = await runCwl(alice, { document: tool, job: { n: 21 } });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(run.outputs!.doubled, 42);
    assert.equal(run.outputs!.note.basename, 'note.txt');
    assert.equal(run.outputs!.note.size, 4);
    assert.equal(await readOutput(alice, run.outputs!.note), 'n=21');
  });

  it('a failing expression fails its step and the run, with the expression named in the reason', async () => {
    const wf = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      requirements: { InlineJavascriptRequirement: {}, StepInputExpressionRequirement: {} },
      inputs: { word: 'string' },
      outputs: { out: { type: 'File', outputSource: 'say/out' } },
      steps: { say: { run: echoTool, in: { word: { source: 'word', valueFrom: '$(self.nosuch.member)' } }, out: ['out'] } },
    };
    const started = await runCwl(alice, { document: wf, job: { word: 'x' } });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'failed');
    assert.equal(run.outputs, null);
    assert.match(run.reason ?? '', /valueFrom of input 'word'/);
    const jobs = await jobsOf(alice, started.task_id);
    assert.equal(jobs.get('main.say').status, 'failed');
    assert.match(jobs.get('main.say').reason, /self\.nosuch\.member/);
  });

  it('a run again with the same inputs is a call-cache hit, step by step, with outputs of its own', async () => {
    const wf = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      inputs: { input: 'File' },
      outputs: { sorted: { type: 'File', outputSource: 'sort/sorted' }, again: { type: 'File', outputSource: 'resort/sorted' } },
      steps: {
        sort: { run: sortTool, in: { input: 'input' }, out: ['sorted'] },
        resort: { run: sortTool, in: { input: 'sort/sorted', name: { default: 'resorted.txt' } }, out: ['sorted'] },
      },
    };
    const input = await uploadFile(alice, '/cwl/inputs/cache/lines.txt', 'z\ny\nx\n');
    const first = await runCwl(alice, { document: wf, job: { input } });
    const firstRun = await waitForCwlRun(alice, first.task_id);
    assert.equal(firstRun.status, 'succeeded', firstRun.reason ?? '');
    const second = await runCwl(alice, { document: wf, job: { input } });
    const secondRun = await waitForCwlRun(alice, second.task_id);
    assert.equal(secondRun.status, 'succeeded', secondRun.reason ?? '');
    const [before, now] = [await jobsOf(alice, first.task_id), await jobsOf(alice, second.task_id)];
    for (const step of ['main.sort', 'main.resort']) {
      assert.equal(now.get(step).cached_from, before.get(step).job_id, `${step}: ${now.get(step).reason}`);
      assert.match(now.get(step).reason, /^from the call cache/);
    }
    assert.equal(secondRun.outputs!.again.location, `gdflow:cwl/runs/${second.task_id}/resorted.txt`);
    assert.equal(await readOutput(alice, secondRun.outputs!.again), 'x\ny\nz\n');
    assert.equal(secondRun.outputs!.again.checksum, firstRun.outputs!.again.checksum);
    // The task routes' rerun: the same document and job, the first run as its reference task.
    const rerun = await alice.api.json<{ task_id: string; task_name: string }>('POST', projectPath(alice.name, `tasks/${first.task_id}/rerun/`));
    assert.match(rerun.task_name, new RegExp(`^${first.task_name}_rerun_\\d{14}_${rerun.task_id}$`));
    const rerunRun = await waitForCwlRun(alice, rerun.task_id);
    assert.equal(rerunRun.status, 'succeeded', rerunRun.reason ?? '');
    assert.equal((await jobsOf(alice, rerun.task_id)).get('main.sort').cached_from, before.get('main.sort').job_id);
    // Another input: no hit.
    const other = await uploadFile(alice, '/cwl/inputs/cache/other.txt', 'b\na\n');
    const third = await runCwl(alice, { document: wf, job: { input: other } });
    assert.equal((await waitForCwlRun(alice, third.task_id)).status, 'succeeded');
    assert.equal((await jobsOf(alice, third.task_id)).get('main.sort').cached_from, null);
  });

  it('stop and delete of a CWL run: its running step is killed, the run stopped with its reason; deleted, it is gone', async () => {
    const sleeper = { cwlVersion: 'v1.2', class: 'CommandLineTool', baseCommand: ['sleep', '60'], inputs: {}, outputs: {} };
    const stopped = await runCwl(alice, { document: sleeper, name: 'cwl_stop_me' });
    assert.equal(stopped.task_name, 'cwl_stop_me');
    await waitForJob(alice, stopped.task_id, 'main', 'running');
    await alice.api.json('PUT', projectPath(alice.name, `tasks/${stopped.task_id}/`));
    const run = await waitForCwlRun(alice, stopped.task_id, 30_000);
    assert.equal(run.status, 'stopped');
    assert.equal(run.outputs, null);
    assert.match(run.reason ?? '', /stop/);
    assert.equal((await jobsOf(alice, stopped.task_id)).get('main').status, 'cancelled');

    const deleted = await runCwl(alice, { document: sleeper });
    await waitForJob(alice, deleted.task_id, 'main', 'running');
    await alice.api.send('DELETE', projectPath(alice.name, `tasks/${deleted.task_id}/`));
    await rejectsWith(getCwlRun(alice, deleted.task_id), 404, 'TaskNotFound');
    assert.equal(existsSync(join(server.dataDir, 'tasks', deleted.task_id)), false, "the task's files are gone");
  });

  it('a location an expression makes up is refused: neither copied into the data store nor bound into a sandbox', async () => {
    const forge = {
      class: 'ExpressionTool',
      requirements: { InlineJavascriptRequirement: {} },
      inputs: {},
      outputs: { stolen: 'File' },
      expression: '$({stolen: {class: "File", location: "file:///etc/passwd"}})',
    };
    const asOutput = await runCwl(alice, { document: { cwlVersion: 'v1.2', ...forge } });
    const outputRun = await waitForCwlRun(alice, asOutput.task_id);
    assert.equal(outputRun.status, 'failed');
    assert.match(outputRun.reason ?? '', /\/etc\/passwd is outside the files this task may read/);
    const wf = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      inputs: {},
      outputs: { out: { type: 'File', outputSource: 'show/out' } },
      steps: {
        forge: { run: forge, in: {}, out: ['stolen'] },
        show: { run: { ...sortTool, outputs: { count: { type: 'stdout' } } }, in: { input: 'forge/stolen' }, out: ['count'] },
      },
    };
    const asInput = await runCwl(alice, { document: { ...wf, outputs: { out: { type: 'File', outputSource: 'show/count' } } } });
    const inputRun = await waitForCwlRun(alice, asInput.task_id);
    assert.equal(inputRun.status, 'failed');
    assert.match(inputRun.reason ?? '', /\/etc\/passwd is outside the directories inputs may come from/);
    assert.equal((await jobsOf(alice, asInput.task_id)).get('main.show').status, 'failed');
  });

  it("InplaceUpdateRequirement: a step changes an earlier step's file where it is, and a later step reading that file sees it", async () => {
    const n = { type: 'File', outputBinding: { glob: 'n.txt' } };
    const make = { class: 'CommandLineTool', baseCommand: ['sh', '-c', 'echo 1 > n.txt'], inputs: {}, outputs: { n } };
    const bump = {
      class: 'CommandLineTool',
      requirements: { InitialWorkDirRequirement: { listing: [{ entry: '$(inputs.n)', writable: true }] }, InplaceUpdateRequirement: { inplaceUpdate: true } },
      inputs: { n: 'File' },
      baseCommand: ['sh', '-c', 'echo 2 > n.txt'],
      outputs: { n },
    };
    const readInputs = { n: { type: 'File', inputBinding: {} }, after: 'File' };
    const read = { class: 'CommandLineTool', baseCommand: 'cat', inputs: readInputs, stdout: 'seen.txt', outputs: { seen: 'stdout' } };
    const wf = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      inputs: {},
      outputs: { seen: { type: 'File', outputSource: 'read/seen' } },
      steps: {
        make: { run: make, in: {}, out: ['n'] },
        bump: { run: bump, in: { n: 'make/n' }, out: ['n'] },
        read: { run: read, in: { n: 'make/n', after: 'bump/n' }, out: ['seen'] },
      },
    };
    const started = await runCwl(alice, { document: wf });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(await readOutput(alice, run.outputs!.seen), '2\n');
  });

  it('a document the server refuses: 400 naming the input; a location that is not gdflow: is refused', async () => {
    await rejectsWith(runCwl(alice, { document: sortTool, job: {} }), 400, 'InvalidParameter', /input/);
    const withInput = (location: string) => runCwl(alice, { document: sortTool, job: { input: { class: 'File', location } } });
    await rejectsWith(withInput('file:///etc/passwd'), 400, 'InvalidParameter', /job\.input\.location 'file:\/\/\/etc\/passwd' is not a data location/);
    await rejectsWith(withInput('gdflow:cwl/nothing/here.txt'), 400, 'InvalidParameter', /no file there/);
  });

  it('an Operation is a feature gdflow does not run: 400 UnsupportedRequirement', async () => {
    const operation = { cwlVersion: 'v1.2', class: 'Operation', inputs: {}, outputs: {} };
    await rejectsWith(runCwl(alice, { document: operation }), 400, 'UnsupportedRequirement', /Operation/);
  });

  it('GET of a task that is not a CWL run, or of no task: 404', async () => {
    await rejectsWith(getCwlRun(alice, '0123456789abcdef01234567'), 404, 'TaskNotFound', /CWL run/);
    await rejectsWith(alice.api.json('GET', projectPath(alice.name, 'cwl/runs/x/')), 404, 'TaskNotFound', /CWL run/);
  });
});
