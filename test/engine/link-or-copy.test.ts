/**
 * engine/link-or-copy.ts on real files in a temporary directory: a hard link where one can be made (the same inode),
 * what each option does with a file already at the target and with a missing source, a tree, and a copy across file
 * systems (/dev/shm, a tmpfs, against the temporary directory's file system). Neither file system here makes reflinks,
 * so a reflink is not told apart from a plain copy: both are a copy with an inode of its own.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { chmod, link, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cloneOrCopy, linkOrCopy, linkOrCopyTree } from '../../src/engine/link-or-copy.js';

const inode = (path: string) => statSync(path).ino;
const sameFile = (a: string, b: string) => statSync(a).dev === statSync(b).dev && inode(a) === inode(b);

describe('linkOrCopy', () => {
  let dir: string;
  let n = 0;
  /** A new path in the directory; with `text`, a file written there. */
  const file = async (text?: string) => {
    const path = join(dir, `f${n++}`);
    if (text !== undefined) await writeFile(path, text);
    return path;
  };
  /** A target already there: a second name of another file (as a job's output linked from an earlier job's is). */
  const secondName = async (text: string) => {
    const other = await file(text);
    const target = await file();
    await link(other, target);
    return { other, target };
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gdflow-link-or-copy-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('makes a hard link on the same file system: the same inode, two names', async () => {
    const source = await file('output');
    const target = await file();
    assert.equal(await linkOrCopy(source, target, { existingTarget: 'copy-over', missingSource: 'throw' }), 'linked');
    assert.ok(sameFile(source, target));
    assert.equal(statSync(source).nlink, 2);
    const direct = await file();
    assert.equal(await linkOrCopy(source, direct, { existingTarget: 'copy-over', missingSource: 'throw', syncLink: true }), 'linked');
    assert.ok(sameFile(source, direct), 'syncLink links too');
  });

  it("existingTarget 'remove': a file there is removed first, so the target is linked and the old file's other name is untouched", async () => {
    const source = await file('new');
    const { other, target } = await secondName('old');
    assert.equal(await linkOrCopy(source, target, { existingTarget: 'remove', missingSource: 'throw' }), 'linked');
    assert.ok(sameFile(source, target));
    assert.equal(await readFile(other, 'utf8'), 'old');
  });

  it("existingTarget 'copy-over': the link fails and the source is copied into the file there, which changes its other names", async () => {
    const source = await file('new');
    const { other, target } = await secondName('old content');
    const before = inode(target);
    assert.equal(await linkOrCopy(source, target, { existingTarget: 'copy-over', missingSource: 'throw' }), 'copied');
    assert.equal(inode(target), before, 'the same file, written over');
    assert.equal(await readFile(target, 'utf8'), 'new');
    assert.equal(await readFile(other, 'utf8'), 'new', 'what the option documents: another name of the target changes');
    // A target that is the source's file already is left as it is.
    const linked = await file();
    await link(source, linked);
    assert.equal(await linkOrCopy(source, linked, { existingTarget: 'copy-over', missingSource: 'throw' }), 'copied');
    assert.ok(sameFile(source, linked));
    assert.equal(await readFile(source, 'utf8'), 'new');
  });

  it("missingSource 'throw' rejects with ENOENT and 'skip' returns 'missing'; neither leaves anything at the target", async () => {
    const missing = join(dir, 'never-written');
    for (const existingTarget of ['remove', 'copy-over'] as const) {
      const target = await file();
      await assert.rejects(linkOrCopy(missing, target, { existingTarget, missingSource: 'throw' }), { code: 'ENOENT' });
      assert.equal(existsSync(target), false);
      assert.equal(await linkOrCopy(missing, target, { existingTarget, missingSource: 'skip' }), 'missing');
      assert.equal(existsSync(target), false);
    }
    const target = await file();
    await assert.rejects(linkOrCopy(missing, target, { existingTarget: 'copy-over', missingSource: 'throw', syncLink: true }), { code: 'ENOENT' });
  });

  it('cloneOrCopy copies (an inode of its own, the same bytes and mode) and writes over a file there in place', async () => {
    const source = await file('bytes');
    await chmod(source, 0o640);
    const target = await file();
    await cloneOrCopy(source, target);
    assert.equal(sameFile(source, target), false);
    assert.equal(await readFile(target, 'utf8'), 'bytes');
    assert.equal(statSync(target).mode & 0o777, 0o640);
    const existing = await file('a longer file that was there');
    const before = inode(existing);
    await cloneOrCopy(source, existing);
    assert.equal(inode(existing), before);
    assert.equal(await readFile(existing, 'utf8'), 'bytes');
  });

  it('linkOrCopyTree links every regular file of a tree, makes its directories, leaves symbolic links out, and throws for a missing source', async () => {
    const source = join(dir, 'tree');
    await mkdir(join(source, 'sub', 'deeper'), { recursive: true });
    await writeFile(join(source, 'top.txt'), 'top');
    await writeFile(join(source, 'sub', 'deeper', 'leaf.txt'), 'leaf');
    await symlink('/etc/passwd', join(source, 'sub', 'out'));
    const target = join(dir, 'tree-copy');
    await linkOrCopyTree(source, target);
    assert.ok(sameFile(join(source, 'top.txt'), join(target, 'top.txt')));
    assert.ok(sameFile(join(source, 'sub', 'deeper', 'leaf.txt'), join(target, 'sub', 'deeper', 'leaf.txt')));
    assert.deepEqual((await readdir(join(target, 'sub'))).sort(), ['deeper']);
    // One file alone is placed as a tree of one.
    const single = join(dir, 'single');
    await linkOrCopyTree(join(source, 'top.txt'), single);
    assert.ok(sameFile(join(source, 'top.txt'), single));
    await assert.rejects(linkOrCopyTree(join(dir, 'no-tree'), join(dir, 'no-tree-copy')), { code: 'ENOENT' });
  });

  describe('across file systems (/dev/shm)', () => {
    const shm = '/dev/shm';
    const reason = !existsSync(shm)
      ? `${shm} does not exist`
      : statSync(shm).dev === statSync(tmpdir()).dev
        ? `${shm} is on the file system of ${tmpdir()}`
        : undefined;
    if (reason) console.log(`# skipping the cross-device cases: ${reason}`);
    let other: string;
    before(async () => {
      if (!reason) other = await mkdtemp(join(shm, 'gdflow-link-or-copy-'));
    });
    after(() => (reason ? undefined : rm(other, { recursive: true, force: true })));

    it('a link cannot cross (EXDEV): the file is copied, with an inode of its own', { skip: reason }, async () => {
      const source = join(other, 'input');
      await writeFile(source, 'from another file system');
      await assert.rejects(link(source, join(dir, 'exdev')), { code: 'EXDEV' });
      for (const existingTarget of ['remove', 'copy-over'] as const) {
        for (const syncLink of [false, true]) {
          const target = await file();
          assert.equal(await linkOrCopy(source, target, { existingTarget, missingSource: 'throw', syncLink }), 'copied');
          assert.notEqual(statSync(target).dev, statSync(source).dev);
          assert.equal(await readFile(target, 'utf8'), 'from another file system');
        }
      }
      const tree = join(other, 'tree');
      await mkdir(join(tree, 'sub'), { recursive: true });
      await writeFile(join(tree, 'sub', 'leaf.txt'), 'leaf');
      await linkOrCopyTree(tree, join(dir, 'tree-across'));
      assert.equal(await readFile(join(dir, 'tree-across', 'sub', 'leaf.txt'), 'utf8'), 'leaf');
      assert.notEqual(statSync(join(dir, 'tree-across', 'sub', 'leaf.txt')).dev, statSync(join(tree, 'sub', 'leaf.txt')).dev);
    });
  });
});
