/**
 * A CWL run survives its server (docs/tasks.md, "Deferred jobs"): the jobs its expansions added were written with the
 * worker's lease-checked commits, so a new server taking the task over finds them where they were: the instance of a
 * scatter that ended is not run again, the one that was running runs again, the job that expanded gathers once its
 * jobs have ended, and the steps after it run.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { processesWith } from '../helpers/cluster.js';
import { jobsOf, readOutput, runCwl, sayEachWord, waitForCwlRun } from '../helpers/cwl-runs.js';
import { ServedAccount } from '../helpers/process.js';
import { waitForJob } from '../helpers/tasks.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gdflow-cwl-recovery-'));
let served: ServedAccount | undefined;

after(async () => {
  await served?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a CWL run after its server is killed', () => {
  it('goes on from where its jobs were: the ended instance is kept, the running one runs again, the rest follows', async () => {
    served = await ServedAccount.start(dataDir, 'cwlrecoverer');
    const { account } = served;
    const marker = `3.${process.pid}${Date.now() % 100000}`;
    const wf = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      requirements: { ScatterFeatureRequirement: {} },
      inputs: { words: 'string[]' },
      outputs: { joined: { type: 'File', outputSource: 'join/out' } },
      steps: {
        say: sayEachWord(['sh', '-c', `if [ "$0" = slow ]; then sleep ${marker}; fi; echo "$0"`]),
        join: {
          run: {
            class: 'CommandLineTool',
            baseCommand: 'cat',
            inputs: { files: { type: 'File[]', inputBinding: {} } },
            stdout: 'joined.txt',
            outputs: { out: 'stdout' },
          },
          in: { files: 'say/out' },
          out: ['out'],
        },
      },
    };
    const { task_id } = await runCwl(account, { document: wf, job: { words: ['quick', 'slow'] } });
    const quickBefore = await waitForJob(account, task_id, 'main.say@0', 'succeeded');
    await waitForJob(account, task_id, 'main.say@1', 'running');
    for (let i = 0; i < 100 && processesWith(`sleep\u0000${marker}`).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(processesWith(`sleep\u0000${marker}`).length > 0, 'the slow instance is running');

    await served.kill();
    await served.restart();
    const run = await waitForCwlRun(account, task_id, 60_000);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(await readOutput(account, run.outputs!.joined), 'quick\nslow\n');

    const jobs = await jobsOf(account, task_id);
    assert.deepEqual([...jobs.keys()].sort(), ['main', 'main.join', 'main.say', 'main.say@0', 'main.say@1'], 'no job was added twice');
    assert.equal(jobs.get('main.say@0').attempt, 1, 'the instance that ended was not run again');
    assert.equal(jobs.get('main.say@0').endTime, quickBefore.endTime);
    assert.equal(jobs.get('main.say@1').attempt, 2, 'the interrupted instance ran again');
    for (const job of jobs.values()) assert.equal(job.status, 'succeeded', `${job.node_id}: ${job.reason}`);
  });
});
