import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { OutsideOutputDirectory } from '../../../src/domain/cwl/tool/index.js';
import { LocalFileAccess, LocalOutputDirectory } from '../../../src/engine/cwl/local-files.js';

function tree(contents: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gdflow-local-files-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(contents)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("LocalOutputDirectory: a finished run's output directory", () => {
  const outside = tree({ 'secret.txt': 'secret' });
  const root = tree({ 'a.txt': 'a', 'b.txt': 'bb', '.hidden': 'h', 'sub/c.txt': 'c', 'sub/deeper/d.txt': 'd', '{a,b}': 'x' });
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'secret-link'));
  symlinkSync('sub/c.txt', join(root, 'inner-link'));
  const output = new LocalOutputDirectory(root);
  const glob = async (pattern: string): Promise<string[]> => [...(await output.glob(pattern))].sort();

  it('globs as POSIX glob(3): *, ?, [...] in one segment, dotfiles only explicitly, no braces, ** as *', async () => {
    assert.deepEqual(await glob('*.txt'), ['a.txt', 'b.txt']);
    assert.deepEqual(await glob('?.txt'), ['a.txt', 'b.txt']);
    assert.deepEqual(await glob('[b].txt'), ['b.txt']);
    assert.deepEqual(await glob('.*'), ['.hidden']);
    assert.deepEqual(await glob('{a,b}'), ['{a,b}']);
    assert.deepEqual(await glob('**/c.txt'), ['sub/c.txt']);
    assert.deepEqual(await glob('sub/*'), ['sub/c.txt', 'sub/deeper']);
    assert.deepEqual(await glob('nothing*'), []);
  });

  it('reads files: stat, the first bytes, sha1, listings', async () => {
    assert.deepEqual(await output.stat('b.txt'), { class: 'File', size: 2 });
    assert.deepEqual(await output.stat('sub'), { class: 'Directory' });
    assert.equal(await output.stat('missing'), undefined);
    assert.equal(Buffer.from(await output.readPrefix('b.txt', 1)).toString(), 'b');
    assert.equal(Buffer.from(await output.readPrefix('b.txt', 100)).toString(), 'bb');
    assert.equal(await output.sha1('b.txt'), createHash('sha1').update('bb').digest('hex'));
    assert.deepEqual(
      [...(await output.list('sub'))].sort((x, y) => x.basename.localeCompare(y.basename)),
      [
        { basename: 'c.txt', class: 'File', size: 1 },
        { basename: 'deeper', class: 'Directory' },
      ],
    );
    assert.equal(output.location, pathToFileURL(root).href);
  });

  it('follows links inside the directory and refuses every path that leads outside it', async () => {
    assert.deepEqual(await output.stat('inner-link'), { class: 'File', size: 1 });
    await assert.rejects(output.stat('secret-link'), /secret-link leads outside the output directory/);
    await assert.rejects(output.stat('secret-link'), OutsideOutputDirectory, 'the step fails, as for any ToolRunError');
    await assert.rejects(output.stat('escape/secret.txt'), /leads outside the output directory/);
    await assert.rejects(output.readPrefix('secret-link', 10), /leads outside/);
    await assert.rejects(output.sha1('../x'), /outside the output directory/);
    await assert.rejects(output.stat('/etc/passwd'), /outside the output directory/);
    await assert.rejects(output.list('.'), /leads outside/, 'a listing holding an escaping link is refused');
  });
});

describe('LocalFileAccess: input Files and Directories by file: URI', () => {
  const root = tree({ 'data/x.txt': 'xyz', 'other/y.txt': 'y' });
  const uri = (path: string): string => pathToFileURL(join(root, path)).href;

  it('stats, reads, hashes and lists; a missing location is undefined', async () => {
    const files = new LocalFileAccess();
    assert.deepEqual(await files.stat(uri('data/x.txt')), { class: 'File', size: 3 });
    assert.equal(await files.stat(uri('data/none')), undefined);
    assert.equal(Buffer.from(await files.readPrefix(uri('data/x.txt'), 2)).toString(), 'xy');
    assert.equal(await files.sha1(uri('data/x.txt')), createHash('sha1').update('xyz').digest('hex'));
    assert.deepEqual(await files.list(uri('data')), [{ basename: 'x.txt', class: 'File', size: 3 }]);
    assert.deepEqual(await files.head(uri('data/x.txt'), 2), { text: 'xy', whole: false }, 'the workflow layer reads contents through it');
    assert.deepEqual(await files.head(uri('data/x.txt'), 3), { text: 'xyz', whole: true });
  });

  it('reads only file: locations, and only under its roots when it has some', async () => {
    await assert.rejects(new LocalFileAccess().stat('http://example.com/x'), /only local files/);
    const files = new LocalFileAccess({ roots: [join(root, 'data')] });
    assert.deepEqual(await files.stat(uri('data/x.txt')), { class: 'File', size: 3 });
    await assert.rejects(files.stat(uri('other/y.txt')), /outside the directories inputs may come from/);
  });
});
