/**
 * A WDL task restarted with debug_params as gdpy 0.1.17 sends them (`PUT wdl/tasks/<id>/restart/`, docs/wdl.md
 * "Restart"), run to its end on the host executor of a real server: the call named runs again with its new command,
 * cpu and memory, the call downstream of it runs again on its new output, and the call upstream is not run again: its
 * outputs come from the task restarted (the call cache's reference task), as the counter file outside the run shows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Scope } from '../../src/domain/tools/service.js';
import { assertRefused } from '../helpers/raw.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { download, waitForTask } from '../helpers/tasks.js';
import { gdpy, gwcForm, sendForm, zipOf, scopeOf } from '../helpers/wdl.js';

/** Three calls in a chain; `first` appends a line to a file outside the run each time it really runs. */
const CHAIN = `version 1.0

task first {
  input {
    String counter
  }
  command <<<
    echo ran >> ~{counter}
    echo alpha > first.txt
  >>>
  output {
    File out = "first.txt"
  }
}

task middle {
  input {
    File text
  }
  command <<<
    tr a-z A-Z < ~{text} > middle.txt
  >>>
  runtime {
    cpu: 1
    memory: "64 MiB"
  }
  output {
    File out = "middle.txt"
  }
}

task last {
  input {
    File text
  }
  command <<<
    cat ~{text} ~{text} > last.txt
  >>>
  output {
    File out = "last.txt"
  }
}

workflow chain {
  input {
    String counter
  }
  call first { input: counter = counter }
  call middle { input: text = first.out }
  call last { input: text = middle.out }
  output {
    File result = last.out
  }
}
`;

/** A scatter over a call's output Files, then a subworkflow call (sub.wdl, in the dependencies zip) that joins them. */
const FANNED = `version 1.0
import "sub.wdl" as sub

task make {
  command <<<
    echo one > a.txt
    echo two > b.txt
  >>>
  output {
    Array[File] files = ["a.txt", "b.txt"]
  }
}

task shout {
  input {
    File f
  }
  command <<<
    tr a-z A-Z < ~{f}
  >>>
  output {
    String s = read_string(stdout())
  }
}

task wrap {
  input {
    String s
  }
  command <<<
    echo ~{s} wrapped
  >>>
  output {
    String s2 = read_string(stdout())
  }
}

workflow fanned {
  call make
  scatter (f in make.files) {
    call shout { input: f = f }
  }
  call sub.tail as tail { input: words = shout.s }
  call wrap { input: s = tail.out }
  output {
    String joined = tail.out
    String wrapped = wrap.s2
  }
}
`;

const SUB = `version 1.0

task join {
  input {
    Array[String] words
  }
  command <<<
    echo ~{sep="-" words}
  >>>
  output {
    String out = read_string(stdout())
  }
}

workflow tail {
  input {
    Array[String] words
  }
  call join { input: words = words }
  output {
    String out = join.out
  }
}
`;

interface JobView {
  job_id: string;
  name: string;
  status: string;
  cpu: number;
  mem: string;
  cached_from: string | null;
  reason: string;
  disk: string | null;
}

describe('a WDL task restarted with debug_params', () => {
  let server: TestServer;
  let alice: TestAccount;
  let scope: Scope;
  let dir: string;
  let workflowId: string;

  before(async () => {
    server = await startTestServer({ cpus: 2, executor: 'host' });
    alice = await server.account();
    scope = await scopeOf(server, alice);
    dir = mkdtempSync(join(tmpdir(), 'gdflow-wdl-restart-'));
    const created = await sendForm(
      server,
      alice,
      'POST',
      'wdl/workflow/',
      gwcForm({ name: 'chain', description: '' }, { source: { filename: 'chain.wdl', data: CHAIN } }),
    );
    assert.equal(created.status, 200, created.text);
    workflowId = created.json().id;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const jobsOf = async (taskId: string): Promise<Map<string, JobView>> => {
    const { jobs } = (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/`)).json();
    return new Map((jobs as JobView[]).map((job) => [job.name, job]));
  };
  const restart = (taskId: string, debug: unknown) => gdpy(server, alice, 'PUT', `wdl/tasks/${taskId}/restart/`, { debug_params: debug });
  /** The run's result file, as its outputs name it in the data store. */
  const result = async (taskId: string) => {
    const outputs = (await server.services.wdlRuns.outputs(scope, taskId)).outputs!;
    return download(alice, (outputs['chain.result'] as string).slice(alice.name.length + 1));
  };

  const outputs = async (taskId: string) => (await server.services.wdlRuns.outputs(scope, taskId)).outputs!;
  const list = async (taskId: string): Promise<JobView[]> => (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/`)).json().jobs;
  /** FANNED stored as a WDL workflow named `name` (sub.wdl in its dependencies zip) and run to its end. */
  const runFanned = async (name: string) => {
    const form = gwcForm(
      { name, description: '' },
      { source: { filename: 'fanned.wdl', data: FANNED }, dependencies: { filename: 'deps.zip', data: zipOf({ 'sub.wdl': SUB }) } },
    );
    const created = await sendForm(server, alice, 'POST', 'wdl/workflow/', form);
    assert.equal(created.status, 200, created.text);
    const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', { workflow_id: created.json().id, inputs: {}, task_name: `${name}_run` });
    assert.equal(started.status, 200, started.text);
    const first = await waitForTask(alice, started.json().task_id, { timeoutMs: 120_000 });
    assert.equal(first.status, 'succeeded', first.reason);
    assert.deepEqual(await outputs(first.task_id), { 'fanned.joined': 'ONE-TWO', 'fanned.wrapped': 'ONE-TWO wrapped' });
    return first;
  };

  it('runs the call named with its new command and resources and what is downstream; the call upstream is reused', async () => {
    const counter = join(dir, 'counter.txt');
    const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', {
      workflow_id: workflowId,
      inputs: { 'chain.counter': counter },
      output_dir: `${alice.name}:/home/admin/chain_run/`,
      task_name: 'chain_run',
    });
    assert.equal(started.status, 200, started.text);
    const taskId = started.json().task_id;
    assert.equal((await waitForTask(alice, taskId, { timeoutMs: 120_000 })).status, 'succeeded');
    assert.equal(await result(taskId), 'ALPHA\nALPHA\n');
    const before = await jobsOf(taskId);

    const restarted = await restart(taskId, [
      { job_name: 'middle', runtime: { cpu: '2c', memory: '256M', disk: '1G' }, command: 'rev < ~{text} > middle.txt\necho "shell ${HOME:+keeps} its own"' },
    ]);
    assert.equal(restarted.status, 200, restarted.text);
    const again = restarted.json().task_id;
    const task = await waitForTask(alice, again, { timeoutMs: 120_000 });
    const jobs = await jobsOf(again);
    assert.equal(task.status, 'succeeded', `${task.reason} ${JSON.stringify([...jobs.values()])}`);

    // first: not run again (the counter has one line), its outputs the old job's.
    assert.equal(readFileSync(counter, 'utf8'), 'ran\n');
    assert.equal(jobs.get('first')!.status, 'succeeded');
    assert.equal(jobs.get('first')!.cached_from, before.get('first')!.job_id);
    // middle: run again with its new command, cpu and memory, shown on the job.
    const middle = jobs.get('middle')!;
    assert.equal(middle.cached_from, null);
    assert.equal(middle.cpu, 2);
    assert.equal(middle.mem, '256m');
    assert.equal(before.get('middle')!.mem, '64m');
    const info = (await gdpy(server, alice, 'GET', `wdl/tasks/${again}/jobs/${middle.job_id}/`)).json();
    assert.match(info.cmd, /^rev < \S+first\.txt > middle\.txt\necho "shell \$\{HOME:\+keeps\} its own"$/);
    const explained = (await gdpy(server, alice, 'GET', `tasks/${again}/jobs/${middle.job_id}/explain/`)).json();
    assert.match(explained.summary, /asked to run again/);
    const reused = (await gdpy(server, alice, 'GET', `tasks/${again}/jobs/${jobs.get('first')!.job_id}/explain/`)).json();
    assert.equal(reused.cached_from, before.get('first')!.job_id);
    // last: run again on middle's new output.
    assert.equal(jobs.get('last')!.cached_from, null);
    assert.equal(await result(again), 'ahpla\nahpla\n');

    // A restart that changes only the memory of the last call still runs it again (its key has not changed), and only it.
    const third = await restart(again, [{ job_name: 'last', runtime: { memory: '300M' } }]);
    assert.equal(third.status, 200, third.text);
    const thirdTask = await waitForTask(alice, third.json().task_id, { timeoutMs: 120_000 });
    assert.equal(thirdTask.status, 'succeeded', thirdTask.reason);
    const thirdJobs = await jobsOf(thirdTask.task_id);
    assert.equal(thirdJobs.get('middle')!.cached_from, middle.job_id);
    assert.ok(thirdJobs.get('first')!.cached_from !== null);
    assert.equal(thirdJobs.get('last')!.cached_from, null);
    assert.equal(thirdJobs.get('last')!.mem, '300m');
    assert.match(thirdJobs.get('last')!.reason, /asked to run again/);
    assert.equal(readFileSync(counter, 'utf8'), 'ran\n');
    assert.equal(await result(thirdTask.task_id), 'ahpla\nahpla\n');
  });

  it("a scatter's instance named runs every instance again, and the subworkflow call downstream; the call upstream is reused", async () => {
    const first = await runFanned('fanned');
    const before = await list(first.task_id);

    assertRefused(
      await restart(first.task_id, [{ job_name: 'tail', command: 'echo no' }]),
      400,
      'InvalidParameter',
      /debug_params\[0\]: call 'tail' runs a subworkflow/,
    );
    const restarted = await restart(first.task_id, [{ job_name: 'shout[1]', command: 'rev < ~{f}' }]);
    assert.equal(restarted.status, 200, restarted.text);
    const again = await waitForTask(alice, restarted.json().task_id, { timeoutMs: 120_000 });
    const jobs = await list(again.task_id);
    assert.equal(again.status, 'succeeded', `${again.reason} ${JSON.stringify(jobs)}`);
    assert.equal((await outputs(again.task_id))['fanned.joined'], 'eno-owt');
    assert.equal((await outputs(again.task_id))['fanned.wrapped'], 'eno-owt wrapped');
    const made = jobs.find((job) => job.name === 'make')!;
    assert.equal(made.cached_from, before.find((job) => job.name === 'make')!.job_id);
    const reran = jobs.filter((job) => job.name === 'shout' || job.name === 'join');
    assert.equal(reran.length, 3, JSON.stringify(jobs));
    for (const job of reran) assert.equal(job.cached_from, null, `${job.name}: ${job.reason}`);
  });

  it('a call inside a subworkflow, named by its job name or its path, runs again with what reads it there and outside', async () => {
    const first = await runFanned('fanned_sub');
    const before = await list(first.task_id);
    const oldJob = (name: string) => before.find((job) => job.name === name)!.job_id;
    assertRefused(
      await restart(first.task_id, [{ job_name: 'tail.nope' }]),
      400,
      'InvalidParameter',
      /debug_params\[0\]\.job_name 'tail\.nope' is no call of workflow fanned \(its calls: make, shout, tail, tail\.join, wrap\)/,
    );
    assertRefused(
      await restart(first.task_id, [{ job_name: 'join' }, { job_name: 'fanned.tail.join' }]),
      400,
      'InvalidParameter',
      /debug_params\[1\]\.job_name 'fanned\.tail\.join' names call tail\.join a second time/,
    );

    // `join`: the name its job has in the job list; its new command and disk apply to it alone.
    const restarted = await restart(first.task_id, [{ job_name: 'join', runtime: { disk: '1G' }, command: 'echo ~{sep="+" words}' }]);
    assert.equal(restarted.status, 200, restarted.text);
    const again = await waitForTask(alice, restarted.json().task_id, { timeoutMs: 120_000 });
    const jobs = await list(again.task_id);
    assert.equal(again.status, 'succeeded', `${again.reason} ${JSON.stringify(jobs)}`);
    assert.deepEqual(await outputs(again.task_id), { 'fanned.joined': 'ONE+TWO', 'fanned.wrapped': 'ONE+TWO wrapped' });
    const job = (name: string) => jobs.find((j) => j.name === name)!;
    // Upstream of it, outside the subworkflow: reused from the task restarted.
    assert.equal(job('make').cached_from, oldJob('make'));
    const shouts = jobs.filter((j) => j.name === 'shout');
    assert.equal(shouts.length, 2);
    for (const shout of shouts)
      assert.ok(
        before.some((old) => old.job_id === shout.cached_from),
        JSON.stringify(shout),
      );
    // The call named ran, with its disk shown; the call outside that reads the subworkflow's output ran again too.
    assert.equal(job('join').cached_from, null);
    assert.equal(job('join').disk, '1024m');
    assert.equal(job('make').disk, null);
    assert.equal(job('wrap').cached_from, null);
    assert.match(job('wrap').reason, /asked to run again/);

    // A disk beyond what the data root has free: the call does not start, and its reason says why.
    const tooBig = await restart(first.task_id, [{ job_name: 'fanned.tail.join', runtime: { disk: '4000000G' } }]);
    assert.equal(tooBig.status, 200, tooBig.text);
    const refused = await waitForTask(alice, tooBig.json().task_id, { timeoutMs: 120_000 });
    assert.equal(refused.status, 'failed');
    const joinJob = (await list(refused.task_id)).find((j) => j.name === 'join')!;
    assert.equal(joinJob.status, 'failed');
    assert.match(
      joinJob.reason,
      /^not started: the restart's debug_params ask 4000000\.0 GiB of disk for this call, and gdflow's data root has [\d.]+ GiB free/,
    );
  });

  it('refuses debug_params that name no call or a command that reads what its task does not declare, naming the field', async () => {
    const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', { workflow_id: workflowId, inputs: { 'chain.counter': join(dir, 'other.txt') } });
    assert.equal(started.status, 200, started.text);
    const taskId = started.json().task_id;
    assertRefused(await restart(taskId, [{ job_name: 'nope' }]), 400, 'InvalidParameter', /debug_params\[0\]\.job_name 'nope' is no call/);
    assertRefused(
      await restart(taskId, [{ job_name: 'last' }, { job_name: 'middle', command: 'cat ~{counter}' }]),
      400,
      'InvalidParameter',
      /debug_params\[1\]\.command: ~\{counter\} is no input or declaration of task middle \(its names: text\)/,
    );
    assertRefused(
      await restart(taskId, [{ job_name: 'middle', command: 'cat ~{text' }]),
      400,
      'InvalidParameter',
      /debug_params\[0\]\.command is not a WDL command: line 1/,
    );
    assert.deepEqual((await gdpy(server, alice, 'GET', `wdl/tasks/?source_id=${taskId}`)).json().task_list, []);
  });
});
