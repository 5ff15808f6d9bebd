/**
 * WDL's `disks` on a real server (docs/wdl.md, "Disks"), through wdl/tasks/ as gwc runs a stored workflow on the host
 * executor: each call's job shows the disk its task's `disks` asks for (Cromwell's "local-disk N HDD" in GiB, the 1.1
 * "500 MB" in decimal megabytes, none when the task asks none); a call asking more than gdflow's data root has free
 * fails before its command runs, with a reason that says how much, where the document asks it and what is free; a
 * restart's debug_params disk replaces the document's, as the inputs JSON's `wf.call.runtime.disks` does; a disk mounted
 * elsewhere fails the call on the host executor, which has no sandbox (wdl-mounts.test.ts: bwrap and podman mount it); a malformed literal is refused when the workflow is created, naming the file, line and
 * column.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertRefused } from '../helpers/raw.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { waitForTask } from '../helpers/tasks.js';
import { gdpy, gwcForm, sendForm } from '../helpers/wdl.js';

/** `sized` appends to a file outside the run each time its command really runs. */
const DISKS = `version 1.0

task sized {
  input {
    Int gb
    String counter
  }
  command <<<
    echo ran >> ~{counter}
  >>>
  runtime {
    disks: "local-disk ~{gb} HDD"
  }
  output {
    String done = "sized"
  }
}

task decimal {
  command <<<
    echo decimal
  >>>
  runtime {
    disks: "500 MB"
  }
  output {
    String done = read_string(stdout())
  }
}

task plain {
  command <<<
    echo plain
  >>>
  output {
    String done = read_string(stdout())
  }
}

workflow disks {
  input {
    Int gb
    String counter
  }
  call sized { input: gb = gb, counter = counter }
  call decimal
  call plain
}
`;

const MOUNTED = `version 1.1

task mounted {
  command <<<
    echo should not run > /dev/stderr
  >>>
  runtime {
    disks: ["2", "/mnt/outputs 4 GiB"]
  }
}

workflow mounts {
  call mounted
}
`;

interface JobView {
  name: string;
  status: string;
  reason: string;
  disk: string | null;
}

describe('WDL disks as a job resource, through wdl/tasks/', () => {
  let server: TestServer;
  let alice: TestAccount;
  let dir: string;

  before(async () => {
    server = await startTestServer({ cpus: 2, executor: 'host' });
    alice = await server.account();
    dir = mkdtempSync(join(tmpdir(), 'gdflow-wdl-disks-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = async (name: string, filename: string, source: string): Promise<string> => {
    const created = await sendForm(server, alice, 'POST', 'wdl/workflow/', gwcForm({ name, description: '' }, { source: { filename, data: source } }));
    assert.equal(created.status, 200, created.text);
    return created.json().id as string;
  };
  const run = async (workflowId: string, inputs: Record<string, unknown>) => {
    const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', { workflow_id: workflowId, inputs });
    assert.equal(started.status, 200, started.text);
    return waitForTask(alice, started.json().task_id, { timeoutMs: 120_000 });
  };
  const jobsOf = async (taskId: string): Promise<Map<string, JobView>> => {
    const { jobs } = (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/`)).json();
    return new Map((jobs as JobView[]).map((job) => [job.name, job]));
  };

  it("takes each call's disk from its task's disks, fails a call asking more than the data root has before its command, and lets debug_params replace it", async () => {
    const workflowId = await create('disks', 'disks.wdl', DISKS);
    const counter = join(dir, 'counter.txt');

    const fits = await run(workflowId, { 'disks.gb': 2, 'disks.counter': counter });
    assert.equal(fits.status, 'succeeded', fits.reason);
    const jobs = await jobsOf(fits.task_id);
    assert.equal(jobs.get('sized')?.disk, '2048m'); // local-disk 2 HDD: 2 GiB
    assert.equal(jobs.get('decimal')?.disk, '477m'); // 500 MB: 500e6 bytes, 476.8 MiB rounded up
    assert.equal(jobs.get('plain')?.disk, null);
    assert.equal(readFileSync(counter, 'utf8'), 'ran\n');

    // 4,000,000 GiB: more than any data root here has free. The call fails before its command; the others run.
    const tooBig = await run(workflowId, { 'disks.gb': 4_000_000, 'disks.counter': counter });
    assert.equal(tooBig.status, 'failed');
    const refused = (await jobsOf(tooBig.task_id)).get('sized')!;
    assert.equal(refused.status, 'failed');
    assert.match(
      refused.reason,
      /^not started: the task's runtime disks \(disks\.wdl:12:12\) ask 4000000\.0 GiB of disk for this call, and gdflow's data root has [\d.]+ GiB free/,
    );
    assert.equal(readFileSync(counter, 'utf8'), 'ran\n', 'the command did not run');

    // A restart's debug_params disk is the job's, instead of the document's.
    const restarted = await gdpy(server, alice, 'PUT', `wdl/tasks/${tooBig.task_id}/restart/`, {
      debug_params: [{ job_name: 'sized', runtime: { disk: '1G' } }],
    });
    assert.equal(restarted.status, 200, restarted.text);
    const again = await waitForTask(alice, restarted.json().task_id, { timeoutMs: 120_000 });
    assert.equal(again.status, 'succeeded', again.reason);
    assert.equal((await jobsOf(again.task_id)).get('sized')?.disk, '1024m');
    assert.equal(readFileSync(counter, 'utf8'), 'ran\nran\n');
  });

  it("fails a call whose disks are mounted at a path of their own before its command on the host executor, saying which executors mount them; the inputs JSON's runtime.disks replaces them", async () => {
    const workflowId = await create('mounts', 'mounts.wdl', MOUNTED);
    const task = await run(workflowId, {});
    assert.equal(task.status, 'failed');
    const mounted = (await jobsOf(task.task_id)).get('mounted')!;
    assert.equal(mounted.status, 'failed');
    assert.match(
      mounted.reason,
      /^not started: task mounted asks for disks mounted at \/mnt\/outputs \(runtime disks, mounts\.wdl:8:12\), and this executor has no sandbox to mount them in: the bwrap and podman executors \(and Slurm wrapping jobs in them\) provide mount points/,
    );

    // A restart's debug_params disk replaces the task's disks, mount points too.
    const restarted = await gdpy(server, alice, 'PUT', `wdl/tasks/${task.task_id}/restart/`, {
      debug_params: [{ job_name: 'mounted', runtime: { disk: '2G' } }],
    });
    assert.equal(restarted.status, 200, restarted.text);
    const again = await waitForTask(alice, restarted.json().task_id, { timeoutMs: 120_000 });
    assert.equal(again.status, 'succeeded', again.reason);
    assert.equal((await jobsOf(again.task_id)).get('mounted')?.disk, '2048m');

    // WDL 1.1 "Specifying / Overriding Runtime Attributes": the inputs JSON's value is the call's.
    const given = await run(workflowId, { 'mounts.mounted.runtime.disks': 'local-disk 3 SSD' });
    assert.equal(given.status, 'succeeded', given.reason);
    assert.equal((await jobsOf(given.task_id)).get('mounted')?.disk, '3072m');
    assertRefused(
      await gdpy(server, alice, 'POST', 'wdl/tasks/', { workflow_id: workflowId, inputs: { 'mounts.mounted.runtime.disks': '3 parsecs' } }),
      400,
      'InvalidParameter',
      /inputs\.mounts\.mounted\.runtime\.disks: runtime disks: '3 parsecs' is not a disk specification/,
    );
  });

  it('refuses a workflow whose disks cannot be read, naming the file, line and column', async () => {
    const form = gwcForm({ name: 'bad_disks', description: '' }, { source: { filename: 'bad.wdl', data: DISKS.replace('"500 MB"', '"500 parsecs"') } });
    assertRefused(
      await sendForm(server, alice, 'POST', 'wdl/workflow/', form),
      400,
      'InvalidParameter',
      /bad\.wdl:24:12: runtime disks: '500 parsecs' is not a disk specification .*'parsecs' is not a unit of storage/,
    );
  });
});
