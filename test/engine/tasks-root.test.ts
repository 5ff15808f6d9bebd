/**
 * The tasks root is marked as the top of a directory hierarchy (ext2/3/4 'T' attribute) where the file system
 * supports it (ext2/3/4), checked with lsattr on a real directory; elsewhere it is still made, and the reason is returned.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { prepareTasksRoot } from '../../src/engine/tasks-root.js';

let base: string;
before(async () => {
  base = await mkdtemp(join(tmpdir(), 'gdflow-tasks-root-test-'));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The attribute letters lsattr shows for a directory. */
function attributes(dir: string): string {
  return spawnSync('lsattr', ['-d', dir], { encoding: 'utf8' }).stdout.split(/\s+/)[0] ?? '';
}

/** The file system type of a directory as stat(1) names it ("ext2/ext3" for ext2, ext3 and ext4). */
function fsType(dir: string): string {
  return spawnSync('stat', ['-f', '-c', '%T', dir], { encoding: 'utf8' }).stdout.trim();
}

describe('tasks root', () => {
  it('is made, and on ext2/3/4 carries the T attribute', async (t) => {
    const dir = join(base, 'data', 'tasks');
    const result = await prepareTasksRoot(dir);
    assert.ok((await stat(dir)).isDirectory());
    if (fsType(base) !== 'ext2/ext3') return t.skip(`${base} is on ${fsType(base)}, not ext2/3/4`);
    if (spawnSync('sh', ['-c', 'command -v chattr']).status !== 0) return t.skip('chattr is not installed (Debian: e2fsprogs)');
    assert.deepEqual(result, { marked: true });
    assert.match(attributes(dir), /T/);
    // again: already there and marked
    assert.deepEqual(await prepareTasksRoot(dir), { marked: true });
  });

  it('on a file system without attributes (/dev/shm, a tmpfs) the directory is made and the reason returned', async (t) => {
    const shm = await mkdtemp(join('/dev/shm', 'gdflow-tasks-root-test-')).catch(() => undefined);
    if (!shm) return t.skip('no /dev/shm here');
    try {
      const result = await prepareTasksRoot(join(shm, 'tasks'));
      assert.ok((await stat(join(shm, 'tasks'))).isDirectory());
      assert.equal(result.marked, false);
      assert.ok(!result.marked && result.why.length > 0);
    } finally {
      await rm(shm, { recursive: true, force: true });
    }
  });
});
