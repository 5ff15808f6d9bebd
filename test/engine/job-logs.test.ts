/**
 * FileJobLogs (engine/job-logs.ts): a job's logs as GET /logs/<job>/ reads them, from real files in a data root laid
 * out as the engine lays it out (engine/layout.ts).
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { FileJobLogs, Layout } from '../../src/engine/index.js';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('FileJobLogs', () => {
  let root: string;
  let layout: Layout;
  let logs: FileJobLogs;
  const job = { taskId: 'a'.repeat(24), nodeId: 'align' };
  const silent = { taskId: 'a'.repeat(24), nodeId: 'never_ran' };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'gdflow-job-logs-'));
    layout = new Layout(root);
    logs = new FileJobLogs(layout);
    await mkdir(layout.jobDir(job.taskId, job.nodeId), { recursive: true });
    await writeFile(layout.stdoutLog(job.taskId, job.nodeId), 'out-1\nout-2\n');
    await writeFile(layout.stderrLog(job.taskId, job.nodeId), 'err-1\n');
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('says whether a job has written a log', async () => {
    assert.equal(await logs.exists(job), true);
    assert.equal(await logs.exists(silent), false);
  });

  it('reads stdout then stderr, or one stream, and any range across the two files', async () => {
    const both = await logs.snapshot(job);
    assert.equal(both.size, 18);
    assert.equal(await text(both.read(0, both.size - 1)), 'out-1\nout-2\nerr-1\n');
    assert.equal(await text(both.read(6, 14)), 'out-2\nerr', 'a range that starts in stdout and ends in stderr');
    assert.equal(await text((await logs.snapshot(job, 'stderr')).read(0, 5)), 'err-1\n');
    const stdout = await logs.snapshot(job, 'stdout');
    assert.equal(stdout.size, 12);
    assert.equal(await text(stdout.read(6, 11)), 'out-2\n');
  });

  it('keeps the size it was taken with while the job writes on, and reads a missing log as empty', async () => {
    const before = await logs.snapshot(job, 'stdout');
    await appendFile(layout.stdoutLog(job.taskId, job.nodeId), 'out-3\n');
    assert.equal(before.size, 12);
    assert.equal(await text(before.read(0, before.size - 1)), 'out-1\nout-2\n');
    assert.equal((await logs.snapshot(job, 'stdout')).size, 18);
    const none = await logs.snapshot(silent);
    assert.equal(none.size, 0);
    assert.equal(await text(none.read(0, -1)), '');
  });
});
