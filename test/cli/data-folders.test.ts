import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MissingComponent, componentsRequired, skipWithout } from '../helpers/components.js';
import { cliFixture, collect, noTerminal, spawnCliInTerminal, type CliFixture } from './support.js';

let f: CliFixture;
let source: string;
/** Relative path → content of the local folder `samples`. */
const files: Record<string, Buffer> = {
  's1/r1.fastq': randomBytes(1000),
  's1/r2.fastq': randomBytes(2000),
  's2/deep/r.fastq': randomBytes(300),
  'notes with space.txt': Buffer.from('a note\n'),
  // Over the in-memory limit: streamed, with its checksum.
  'big.bin': randomBytes(17 * 1024 * 1024),
};

/** Every file below `dir`, relative path → content. */
function tree(dir: string): Record<string, Buffer> {
  const found: Record<string, Buffer> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) found[relative(dir, join(entry.parentPath, entry.name))] = readFileSync(join(entry.parentPath, entry.name));
  }
  return found;
}

before(async () => {
  f = await cliFixture();
  source = join(f.dir, 'local', 'samples');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(source, path, '..'), { recursive: true });
    writeFileSync(join(source, path), content);
  }
  // A link back up is not followed (it would never end); a broken link is passed over.
  symlinkSync('..', join(source, 's2', 'up'));
  symlinkSync('nowhere', join(source, 's2', 'broken'));
});
after(async () => f.close());

describe('gdflow data put and get of a folder', () => {
  it('uploads a folder recursively under NAME/<folder>/ and downloads it back byte for byte', async () => {
    const put = await f.run(['data', 'put', source, '/proj/']);
    assert.equal(put.status, 0, put.stderr);
    assert.equal(put.stdout.trim().split('\n').length, 5, put.stdout);
    assert.match(put.stdout, new RegExp(`s1/r2.fastq -> ${f.account.name}:/proj/samples/s1/r2.fastq \\(2\\.0 KiB, md5 [0-9a-f]{32}\\)`));
    assert.match(put.stderr, /s2\/up: skipped \(a link to a directory\)/);
    assert.match(put.stderr, /s2\/broken: skipped \(a broken link\)/);
    const listed = (await f.run(['data', 'ls', '/proj/', '--json'])).json().items.map((i: any) => i.name);
    assert.deepEqual(
      listed,
      Object.keys(files)
        .map((p) => `${f.account.name}:/proj/samples/${p}`)
        .sort(),
    );

    const back = await f.run(['data', 'get', '/proj/samples/', join(f.dir, 'back')]);
    assert.equal(back.status, 0, back.stderr);
    assert.match(back.stderr, /\/proj\/samples\/ -> .*back\/ \(5 files, 17 MiB\)/);
    assert.deepEqual(tree(join(f.dir, 'back')), files);

    // Without the trailing '/', and into the folder's own name here.
    const here = await f.run(['data', 'get', '/proj/samples']);
    assert.equal(here.status, 0, here.stderr);
    assert.deepEqual(tree(join(f.dir, 'samples')), files);
    assert.ok(!readdirSync(join(f.dir, 'samples', 's1')).some((name) => name.endsWith('.gdflow-part')), 'no part-files left');
  });

  it("'put DIR NAME' stores the folder's files below NAME; a bad name anywhere uploads nothing; an empty prefix is said", async () => {
    const flat = await f.run(['data', 'put', join(source, 's1'), '/flat', '--json']);
    assert.equal(flat.status, 0, flat.stderr);
    assert.deepEqual(
      flat.json().map((r: any) => r.name),
      [`${f.account.name}:/flat/r1.fastq`, `${f.account.name}:/flat/r2.fastq`],
    );

    const bad = join(f.dir, 'bad');
    mkdirSync(join(bad, 'inner'), { recursive: true });
    writeFileSync(join(bad, 'good.txt'), 'fine');
    writeFileSync(join(bad, 'inner', '.gdflow-tmp-x'), 'a reserved name');
    const refused = await f.run(['data', 'put', bad, '/bad/']);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /nothing was uploaded: .*inner\/\.gdflow-tmp-x: data name .* reserved/);
    assert.deepEqual((await f.run(['data', 'ls', '/bad/', '--json'])).json().items, []);

    const none = await f.run(['data', 'get', '/nothing/here/']);
    assert.equal(none.status, 1);
    assert.match(none.stderr, /no data items below \/nothing\/here\//);
    assert.equal((await f.run(['data', 'get', '/proj/samples/', '-'])).status, 2, 'a folder cannot go to stdout');
    assert.equal((await f.run(['data', 'put', join(f.dir, 'missing-dir'), '/x/'])).status, 2);
    assert.ok(!existsSync(join(f.dir, 'nothing')));
  });

  it('shows one progress bar for the whole folder on a terminal', { skip: skipWithout(noTerminal()) }, async () => {
    const missing = noTerminal();
    if (missing && componentsRequired()) throw new MissingComponent(missing);
    const result = await collect(spawnCliInTerminal(['data', 'put', source, '/tty/'], { env: f.env, cwd: f.dir }));
    assert.equal(result.status, 0, result.stdout);
    assert.match(result.stdout, /uploading \[[^\]]*\] 100% \| 5\/5 files \| 17 MiB of 17 MiB/);
    assert.ok(result.stdout.lastIndexOf('\x1b[?25h') > result.stdout.indexOf('\x1b[?25l'), 'the cursor is shown again');
  });
});
