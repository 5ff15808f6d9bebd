/**
 * Linked job directories (engine/linked-job-dirs.ts): the hits of a task that ends as it is created are links to the
 * directories of the jobs they reuse, or its whole directory a link to the task they reuse. On real files in a data root laid out as the engine lays it out (engine/layout.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Layout } from '../../src/engine/index.js';
import { handOverLinkedDirs, isLinkedJobDir, linkJobDir, linkTaskDir, removeWorkDir, unlinkJobDir } from '../../src/engine/linked-job-dirs.js';

const ran = { taskId: 'r'.repeat(24), nodeId: 'align' };
const hit = { taskId: 'h'.repeat(24), nodeId: 'align' };
const other = { taskId: 'o'.repeat(24), nodeId: 'align' };

describe('linked job directories', () => {
  let root: string;
  let layout: Layout;
  const output = (job: { taskId: string; nodeId: string }) => join(layout.workDir(job.taskId, job.nodeId), 'outputs', 'out', 'x.txt');

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gdflow-linked-dirs-'));
    layout = new Layout(root);
    mkdirSync(join(layout.workDir(ran.taskId, ran.nodeId), 'outputs', 'out'), { recursive: true });
    writeFileSync(output(ran), 'made\n');
    writeFileSync(layout.stdoutLog(ran.taskId, ran.nodeId), 'said\n');
    for (const job of [hit, other]) mkdirSync(layout.taskDir(job.taskId));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("makes a hit's directory a relative link to its source's, never a link to a link", () => {
    assert.equal(linkJobDir(layout, ran, hit), true);
    assert.ok(isLinkedJobDir(layout, hit));
    assert.equal(readFileSync(output(hit), 'utf8'), 'made\n');
    assert.equal(realpathSync(layout.jobDir(hit.taskId, hit.nodeId)), realpathSync(layout.jobDir(ran.taskId, ran.nodeId)));
    assert.equal(linkJobDir(layout, hit, other), false, 'the source is a link: the caller places copies');
    assert.equal(existsSync(layout.jobDir(other.taskId, other.nodeId)), false);
  });

  it('removes a link, not what it leads to, when the task of the link goes or its intermediates are removed', async () => {
    linkJobDir(layout, ran, hit);
    await removeWorkDir(layout, hit);
    assert.equal(existsSync(layout.jobDir(hit.taskId, hit.nodeId)), false);
    assert.equal(readFileSync(output(ran), 'utf8'), 'made\n');
    linkJobDir(layout, ran, hit);
    rmSync(layout.taskDir(hit.taskId), { recursive: true, force: true });
    assert.equal(readFileSync(output(ran), 'utf8'), 'made\n');
    await removeWorkDir(layout, ran);
    assert.equal(existsSync(output(ran)), false, "a job's own working directory is removed");
  });

  it('takes a link back, and leaves a directory of its own alone', () => {
    linkJobDir(layout, ran, hit);
    unlinkJobDir(layout, hit);
    assert.equal(existsSync(layout.jobDir(hit.taskId, hit.nodeId)), false);
    unlinkJobDir(layout, ran);
    assert.ok(lstatSync(layout.jobDir(ran.taskId, ran.nodeId)).isDirectory());
  });

  it('hands the directory over before its task goes: moved to the first link, the second linked to the first', () => {
    linkJobDir(layout, ran, hit);
    linkJobDir(layout, ran, other);
    const stamp = lstatSync(output(ran));
    handOverLinkedDirs(layout, ran.taskId, [hit, other]);
    assert.ok(lstatSync(layout.jobDir(hit.taskId, hit.nodeId)).isDirectory(), 'the first has the directory itself');
    assert.equal(lstatSync(output(hit)).mtimeMs, stamp.mtimeMs, 'its files keep their stamps');
    assert.equal(readFileSync(layout.stdoutLog(hit.taskId, hit.nodeId), 'utf8'), 'said\n');
    assert.ok(isLinkedJobDir(layout, other), 'the second a link to it');
    assert.equal(realpathSync(layout.jobDir(other.taskId, other.nodeId)), realpathSync(layout.jobDir(hit.taskId, hit.nodeId)));
    rmSync(layout.taskDir(ran.taskId), { recursive: true, force: true });
    assert.equal(readFileSync(output(other), 'utf8'), 'made\n');
  });

  it("makes a task's directory a link to the task its hits reuse, never to a task with a linked job", () => {
    rmSync(layout.taskDir(hit.taskId), { recursive: true });
    assert.equal(linkTaskDir(layout, ran.taskId, hit.taskId, [ran.nodeId]), true);
    assert.ok(isLinkedJobDir(layout, hit));
    assert.equal(readFileSync(output(hit), 'utf8'), 'made\n');
    assert.equal(linkJobDir(layout, hit, other), false, 'a job in a linked task is a link too');
    rmSync(layout.taskDir(other.taskId), { recursive: true });
    assert.equal(linkTaskDir(layout, hit.taskId, other.taskId, [hit.nodeId]), false);
    assert.equal(existsSync(layout.taskDir(other.taskId)), false, 'nothing made');
  });

  it('hands a whole task over first, and points the links of single jobs into it', async () => {
    rmSync(layout.taskDir(hit.taskId), { recursive: true });
    linkTaskDir(layout, ran.taskId, hit.taskId, [ran.nodeId]);
    linkJobDir(layout, ran, other);
    handOverLinkedDirs(layout, ran.taskId, [other, hit]);
    assert.ok(lstatSync(layout.taskDir(hit.taskId)).isDirectory(), 'the linked task has the directory itself');
    assert.equal(existsSync(layout.taskDir(ran.taskId)), false, 'moved');
    assert.equal(realpathSync(layout.jobDir(other.taskId, other.nodeId)), realpathSync(layout.jobDir(hit.taskId, hit.nodeId)));
    assert.equal(readFileSync(output(other), 'utf8'), 'made\n');
    await removeWorkDir(layout, other);
    assert.equal(readFileSync(output(hit), 'utf8'), 'made\n', 'removing the linked job removes its link only');
  });

  it('leaves alone what is not a link into the task going', () => {
    mkdirSync(layout.jobDir(other.taskId, other.nodeId));
    handOverLinkedDirs(layout, ran.taskId, [other, hit]);
    assert.ok(lstatSync(layout.jobDir(other.taskId, other.nodeId)).isDirectory());
    assert.equal(existsSync(layout.jobDir(hit.taskId, hit.nodeId)), false);
    assert.ok(existsSync(output(ran)));
  });
});
