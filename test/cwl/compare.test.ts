/**
 * The conformance driver's output matching (scripts/cwl/compare.ts), rule by rule, on cases shaped like the suite's
 * expectations: real files in a temporary output directory, their checksums recomputed from disk.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compareOutputs } from '../../scripts/cwl/compare.js';
import { parseOutputJson } from '../../scripts/cwl/numbers.js';

const HELLO_SHA1 = 'sha1$f572d396fae9206628714fb2ce00f72e94f2258f'; // "hello\n", 6 bytes
const EMPTY_SHA1 = 'sha1$da39a3ee5e6b4b0d3255bfef95601890afd80709';

let outdir: string;
const cwd = tmpdir();
const uri = (...parts: string[]) => pathToFileURL(join(outdir, ...parts)).href;
const path = (...parts: string[]) => join(outdir, ...parts);

/** What a runner reports for an output file it wrote (cwltool's shape: location, path, basename, checksum, size). */
function fileObject(name: string, checksum = HELLO_SHA1, size = 6): Record<string, unknown> {
  return { class: 'File', location: uri(name), path: path(name), basename: name.split('/').pop(), checksum, size };
}

const passes = (expected: unknown, actual: unknown) => assert.equal(compareOutputs(expected, actual, cwd), undefined);
const fails = (expected: unknown, actual: unknown, at: string, reason: RegExp) => {
  const mismatch = compareOutputs(expected, actual, cwd);
  assert.ok(mismatch, 'expected a mismatch');
  assert.equal(mismatch.at, at);
  assert.match(mismatch.reason, reason);
};

before(() => {
  outdir = mkdtempSync(join(tmpdir(), 'cwl-compare-'));
  writeFileSync(path('foo.txt'), 'hello\n');
  writeFileSync(path('empty.txt'), '');
  mkdirSync(path('testdir', 'c'), { recursive: true });
  writeFileSync(path('testdir', 'a'), 'hello\n');
  writeFileSync(path('testdir', 'b'), '');
  writeFileSync(path('testdir', 'c', 'd'), 'hello\n');
  writeFileSync(path('foo.txt.idx'), '');
});
after(() => rmSync(outdir, { recursive: true, force: true }));

describe('values, lists and records', () => {
  it('matches command lines item by item, in order', () => {
    passes({ args: ['bwa', 'mem', '-t', '2'] }, { args: ['bwa', 'mem', '-t', '2'] });
    fails({ args: ['bwa', 'mem', '-t', '2'] }, { args: ['bwa', '-t', '2', 'mem'] }, 'output.args[1]', /differs/);
    fails({ args: ['cat', 'hello.txt'] }, { args: ['cat', '-n', 'hello.txt'] }, 'output.args', /expected 2 items, got 3/);
    fails({ args: ['bwa'] }, { args: 'bwa' }, 'output.args', /expected a list/);
  });

  it('compares numbers as values, and does not take a string for a number', () => {
    passes({ output1: 1, output2: 2.5 }, parseOutputJson('{"output1": 1.0, "output2": 2.50}'));
    fails({ output1: 1 }, { output1: '1' }, 'output.output1', /differs/);
    fails({ out: true }, { out: 1 }, 'output.out', /differs/);
  });

  it('compares large integers exactly, as Python does: a runner printing 4.2e+42 for the integer fails', () => {
    const expected = { fifth: 4200000000000000000000000000000000000000000n, fourth: 4242424242 };
    passes(expected, parseOutputJson('{"fifth": 4200000000000000000000000000000000000000000, "fourth": 4242424242}'));
    fails(expected, parseOutputJson('{"fifth": 4.2e+42, "fourth": 4242424242}'), 'output.fifth', /differs/);
    // 2^53 + 1 and 2^53 are one double apart from nothing: JSON.parse would read them as equal.
    fails({ n: 9007199254740993n }, parseOutputJson('{"n": 9007199254740992}'), 'output.n', /differs/);
    passes({ n: 9007199254740992 }, parseOutputJson('{"n": 9007199254740992.0}'));
  });

  it('refuses a key the expected object lacks, unless its value is null', () => {
    passes({ out: 'a' }, { out: 'a', unset_optional: null });
    fails({ out: 'a' }, { out: 'a', extra: 'b' }, 'output.extra', /unexpected key/);
    fails({ rec: { a: 1 } }, { rec: { a: 1, b: 2 } }, 'output.rec.b', /unexpected key/);
    // Keys are the objects' own: Object's `toString` is neither expected nor found.
    fails({ toString: 'x' }, parseOutputJson('{}'), 'output.toString', /missing/);
    fails({}, parseOutputJson('{"toString": "x"}'), 'output.toString', /unexpected key/);
  });

  it('takes Any for any value, even a null or an absent one, and null only for null or absent', () => {
    passes({ out: 'Any' }, { out: { anything: [1, 2] } });
    passes({ out: 'Any' }, { out: null });
    passes({ out: 'Any' }, {});
    passes({ out: null }, { out: null });
    passes({ out: null }, {});
    fails({ out: null }, { out: 'x' }, 'output.out', /differs/);
    fails({ out: 'x' }, {}, 'output.out', /missing/);
    fails(undefined, {}, 'output', /differs/);
  });
});

describe('File objects', () => {
  it('matches the location by its tail and the checksum and size computed from the file on disk', () => {
    const expected = { foo: { class: 'File', location: 'foo.txt', checksum: HELLO_SHA1, size: 6 } };
    passes(expected, { foo: fileObject('foo.txt') });
    passes({ foo: { class: 'File', location: 'Any', path: 'Any', size: 6 } }, { foo: fileObject('foo.txt') });
    fails({ foo: { class: 'File', location: 'oo.txt' } }, { foo: fileObject('foo.txt') }, 'output.foo.path', /does not end with \/oo\.txt/);
    fails({ foo: { class: 'File', location: 'bar/foo.txt' } }, { foo: fileObject('foo.txt') }, 'output.foo.path', /does not end with/);
  });

  it('refuses a checksum or size the runner declares but the file on disk does not have', () => {
    // The runner prints the expected checksum, but what it wrote is empty: recomputing catches it.
    const lying = { ...fileObject('empty.txt'), checksum: HELLO_SHA1, size: 6 };
    fails({ foo: { class: 'File', checksum: HELLO_SHA1 } }, { foo: lying }, 'output.foo.checksum', /declared .* but the file on disk has sha1\$da39/);
    const empty = fileObject('empty.txt', EMPTY_SHA1, 0);
    fails({ foo: { class: 'File', size: 6 } }, { foo: { ...empty, size: 6 } }, 'output.foo.size', /declared 6 but the file on disk has 0 bytes/);
    fails({ foo: { class: 'File', checksum: HELLO_SHA1 } }, { foo: empty }, 'output.foo.checksum', /the file on disk has sha1\$da39/);
    fails({ foo: { class: 'File', size: 6 } }, { foo: fileObject('empty.txt', EMPTY_SHA1, 0) }, 'output.foo.size', /the file on disk has 0 bytes/);
  });

  it('refuses a file that is not on disk, or not a local one', () => {
    const gone = { ...fileObject('foo.txt'), location: uri('gone.txt'), path: path('gone.txt') };
    fails({ foo: { class: 'File', location: 'gone.txt' } }, { foo: gone }, 'output.foo.path', /is not a file on this machine/);
    fails({ foo: { class: 'File', checksum: HELLO_SHA1 } }, { foo: gone }, 'output.foo', /cannot read/);
    const remote = { class: 'File', location: 'http://example.org/foo.txt', checksum: HELLO_SHA1 };
    fails({ foo: { class: 'File', location: 'foo.txt' } }, { foo: remote }, 'output.foo.location', /is not a file on this machine/);
    fails({ foo: { class: 'File' } }, { foo: { class: 'File', path: path('foo.txt') } }, 'output.foo.location', /must have a location/);
  });

  it("reads a location given as a file: URI without a path, and a relative path from the runner's directory", () => {
    passes({ foo: { class: 'File', location: 'foo.txt', checksum: HELLO_SHA1 } }, { foo: { class: 'File', location: uri('foo.txt') } });
    const relative = join(outdir.slice(cwd.length + 1), 'foo.txt');
    passes({ foo: { class: 'File', location: 'foo.txt', size: 6 } }, { foo: { class: 'File', location: relative } });
  });

  it('lets a File carry keys the expected one lacks, but matches the keys it names (basename, secondaryFiles, format)', () => {
    const format = 'http://edamontology.org/format_2330';
    const actual = { ...fileObject('foo.txt'), nameroot: 'foo', nameext: '.txt', format, secondaryFiles: [fileObject('foo.txt.idx', EMPTY_SHA1, 0)] };
    passes({ class: 'File', basename: 'foo.txt', nameext: '.txt', secondaryFiles: [{ class: 'File', basename: 'foo.txt.idx', size: 0 }] }, actual);
    fails({ class: 'File', basename: 'bar.txt' }, actual, 'output.basename', /differs/);
    fails({ class: 'File', format: 'http://edamontology.org/format_1930' }, actual, 'output.format', /differs/);
    fails({ class: 'File', secondaryFiles: [] }, actual, 'output.secondaryFiles', /expected 0 items, got 1/);
    fails({ class: 'File', secondaryFiles: [{ class: 'File', checksum: HELLO_SHA1 }] }, actual, 'output.secondaryFiles[0].checksum', /the file on disk has/);
  });

  it('checks expected contents against the file on disk, read from the path', () => {
    passes({ class: 'File', contents: 'hello\n' }, fileObject('foo.txt'));
    fails({ class: 'File', contents: 'hello' }, fileObject('foo.txt'), 'output.contents', /other contents/);
    const { path: _path, ...locationOnly } = fileObject('foo.txt');
    fails({ class: 'File', contents: 'hello\n' }, locationOnly, 'output.path', /no path to read the contents from/);
  });

  it('does not take a Directory for a File, nor a File for a Directory', () => {
    const dir = { class: 'Directory', location: uri('testdir'), path: path('testdir'), listing: [] };
    fails({ class: 'File', location: 'testdir' }, dir, 'output.class', /differs/);
    fails({ class: 'File', location: 'testdir' }, { ...dir, class: 'File' }, 'output.path', /is not a file/);
    fails({ class: 'Directory', listing: [] }, fileObject('foo.txt'), 'output', /class Directory/);
  });
});

describe('Directory objects', () => {
  const dirObject = () => ({
    class: 'Directory',
    location: `${uri('testdir')}/`,
    path: `${path('testdir')}/`,
    basename: 'testdir',
    listing: [
      { class: 'Directory', location: uri('testdir', 'c'), basename: 'c', listing: [{ ...fileObject('testdir/c/d'), basename: 'd' }] },
      { ...fileObject('testdir/b', EMPTY_SHA1, 0), basename: 'b' },
      { ...fileObject('testdir/a'), basename: 'a' },
    ],
  });

  it('finds each expected listing entry in the actual listing, in any order, recursively, ignoring the trailing slash', () => {
    passes(
      {
        dir: {
          class: 'Directory',
          location: 'testdir',
          listing: [
            { class: 'File', location: 'a', checksum: HELLO_SHA1, size: 6 },
            { class: 'File', location: 'b', checksum: EMPTY_SHA1, size: 0 },
            { class: 'Directory', location: 'c', listing: [{ class: 'File', location: 'd', checksum: HELLO_SHA1 }] },
          ],
        },
      },
      { dir: dirObject() },
    );
    // cwltest does not require the expected listing to be complete: entries it does not name are allowed.
    passes({ dir: { class: 'Directory', listing: [{ class: 'File', basename: 'b' }] } }, { dir: dirObject() });
  });

  it('fails when an expected entry has no match, naming it, or when the actual Directory has no listing', () => {
    fails(
      { dir: { class: 'Directory', listing: [{ class: 'Directory', basename: 'c', listing: [{ class: 'File', basename: 'd', size: 0 }] }] } },
      { dir: dirObject() },
      'output.dir.listing[0]',
      /no entry of the actual listing matches \(c\)/,
    );
    const { listing: _listing, ...withoutListing } = dirObject();
    fails({ dir: { class: 'Directory', listing: [] } }, { dir: withoutListing }, 'output.dir.listing', /must have its 'listing'/);
    fails({ dir: { class: 'Directory', location: 'elsewhere', listing: [] } }, { dir: dirObject() }, 'output.dir.path', /does not end with \/elsewhere/);
    fails({ dir: { class: 'Directory', basename: 'testdir' } }, { dir: dirObject() }, 'output.dir.listing', /the expected Directory has no listing/);
  });
});
