/**
 * Retries (docs/tasks.md, "Retries"), through the API with real jobs: a job that runs out of memory runs again with
 * more, a job that fails for another reason runs again as its tool's policy says and no more, and every attempt is
 * kept on the job.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { E2E_EXECUTORS } from '../helpers/executors.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, waitForTask } from '../helpers/tasks.js';
import { singleToolWorkflow, template } from '../helpers/workflows.js';

/** Run a one-tool workflow with its template's parameters to its end: the task, and its tool job's info. */
async function runToEnd(account: TestAccount, workflow: string, timeoutMs = 60_000): Promise<{ task: any; job: any }> {
  const { task_id } = await activate(account, { workflow_name: workflow, workflow_version: 1, parameters: await template(account, workflow) });
  const task = await waitForTask(account, task_id, { timeoutMs });
  return { task, job: await onlyJob(account, task_id) };
}

async function onlyJob(account: TestAccount, taskId: string): Promise<any> {
  const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`));
  const work = jobs.find((j: any) => j.node_id === 'work');
  return account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/${work.job_id}/`));
}

// bwrap and the container executors each tell an out-of-memory kill their own way; the retry reads them the same.
for (const executor of E2E_EXECUTORS) {
  describe(`retries: ${executor.name}`, { skip: executor.skip, timeout: 180_000 }, () => {
    let server: TestServer;
    const requirements = (mem: string) => ({ container: { image: executor.image, type: 'docker' }, resources: { cpu: 1, mem, disk: '256m', network: false } });
    before(async () => {
      executor.prepare();
      server = await startTestServer({ cpus: 2, ...executor.config });
    });
    after(async () => server?.close());

    it('a job that exceeds its memory is retried with more and succeeds; both attempts are on the job', async () => {
      const account = await server.account();
      // About 200 MB of a's: over 64 MB, well under 64 × 8.
      await singleToolWorkflow(account, 'hungry', {
        cmd_template: `x=$(head -c 209715200 /dev/zero | tr '\\0' a); printf %s "$x" | wc -c > {{ outputs.out[0].path }}`,
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements: requirements('64m'),
        retry: { max_attempts: 3, on: ['out_of_memory'], memory_factor: 8 },
      });
      const { task, job } = await runToEnd(account, 'hungry');
      assert.equal(task.status, 'succeeded', task.reason);
      assert.equal(job.attempt, 2);
      assert.equal(job.mem, '512m', 'the job now has the memory of its last attempt');
      assert.equal(job.attempts.length, 2);
      const [first, second] = job.attempts;
      assert.equal(first.outcome, 'out_of_memory');
      assert.equal(first.mem, '64m');
      assert.match(first.reason, /^out of memory/);
      assert.equal(second.outcome, 'succeeded');
      assert.equal(second.mem, '512m');
      for (const attempt of job.attempts) assert.ok(attempt.startTime !== null && attempt.endTime >= attempt.startTime);
      const { events } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${task.task_id}/events/`));
      const requeue = events.find((e: any) => e.job_id === job.job_id && e.from === 'running' && e.to === 'queued');
      assert.match(requeue.reason, /attempt 1 out_of_memory: out of memory.*attempt 2 runs, with 512 MB/);
    });
  });
}

describe('retries: the policy', { timeout: 180_000 }, () => {
  let server: TestServer;
  const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '128m', disk: '256m', network: false } };
  before(async () => {
    server = await startTestServer({ cpus: 2 });
  });
  after(async () => server?.close());

  it('a job that fails for another reason is retried as its policy says, after its backoff, and not beyond', async () => {
    const account = await server.account();
    await singleToolWorkflow(account, 'flaky', {
      cmd_template: 'echo trying >&2; exit 3',
      outputs: { out: { type: 'file', formats: 'txt' } },
      requirements,
      retry: { max_attempts: 3, on: ['exit_code'], backoff_seconds: 0.5 },
    });
    const { task, job } = await runToEnd(account, 'flaky');
    assert.equal(task.status, 'failed');
    assert.equal(job.status, 'failed');
    assert.deepEqual(
      job.attempts.map((a: any) => [a.attempt, a.outcome, a.exit_code]),
      [
        [1, 'failed', 3],
        [2, 'failed', 3],
        [3, 'failed', 3],
      ],
    );
    assert.match(job.reason, /exit code 3 \(attempt 3 of 3, no retries left\)/);
    // The backoff: 0.5 s before attempt 2, 1 s before attempt 3.
    assert.ok(job.attempts[1].startTime - job.attempts[0].endTime >= 0.45, 'attempt 2 waited out its backoff');
    assert.ok(job.attempts[2].startTime - job.attempts[1].endTime >= 0.95, 'attempt 3 waited twice as long');
  });

  it('a failure the policy does not name is not retried, and without a policy only a lost worker is', async () => {
    const account = await server.account();
    await singleToolWorkflow(account, 'picky', {
      cmd_template: 'exit 4',
      outputs: { out: { type: 'file', formats: 'txt' } },
      requirements,
      retry: { max_attempts: 5, on: ['out_of_memory'] },
    });
    await singleToolWorkflow(account, 'plain', { cmd_template: 'exit 5', outputs: { out: { type: 'file', formats: 'txt' } }, requirements });
    for (const [name, code] of [
      ['picky', 4],
      ['plain', 5],
    ] as const) {
      const { task, job } = await runToEnd(account, name);
      assert.equal(task.status, 'failed');
      assert.deepEqual(
        job.attempts.map((a: any) => [a.attempt, a.exit_code]),
        [[1, code]],
        `${name}: one attempt`,
      );
      assert.equal(job.reason, `exit code ${code}`);
    }
  });

  it('a policy that cannot be read is refused when the tool is put, naming the member', async () => {
    const account = await server.account();
    const refused = (pattern: RegExp) => (error: any) => error.status === 400 && pattern.test(error.message);
    const put = (retry: unknown) =>
      singleToolWorkflow(account, `bad${Math.random().toString(36).slice(2, 8)}`, {
        cmd_template: 'true',
        outputs: { out: { type: 'file', formats: 'txt' } },
        requirements,
        retry,
      });
    await assert.rejects(put({ max_attempts: 0 }), refused(/retry\.max_attempts/));
    await assert.rejects(put({ on: ['sometimes'] }), refused(/retry\.on\.0 must be one of/));
    await assert.rejects(put({ memory_factor: 100 }), refused(/retry\.memory_factor/));
    await assert.rejects(put({ max_memory: 'lots' }), refused(/retry\.max_memory/));
  });
});
