import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type StagedItem } from '../../../../src/domain/cwl/tool/index.js';
import { TOOL, yaml } from '../helpers.js';
import { directoryAt, fileAt, prepare, rejectsWith, tempTree } from './helpers.js';

const uri = (path: string): string => pathToFileURL(path).href;

describe('CWL CommandLineTool: input Files and Directories', () => {
  const dir = tempTree({
    'reads.bam': 'bam',
    'reads.bam.bai': 'index',
    'reads.bai': 'index2',
    'ref.fa': '>chr1\nACGT\n',
    'big.txt': 'x'.repeat(64 * 1024 + 1),
    'exact.txt': 'y'.repeat(64 * 1024),
    'latin1.txt': Uint8Array.from([0xe9, 0x0a]),
    'data/a.txt': 'a',
    'data/sub/b.txt': 'bb',
  });

  it('stages each input in a directory of its own outside the outdir, secondary files beside it, and rewrites path and dirname', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cat
        inputs:
          - {id: bam, type: File, secondaryFiles: [.bai, ^.bai], inputBinding: {position: 1}}
          - {id: ref, type: File, inputBinding: {position: 2}}
          - {id: again, type: File, inputBinding: {position: 3}}
        outputs: []
        `,
      { bam: fileAt(`${dir}/reads.bam`), ref: fileAt(`${dir}/ref.fa`), again: fileAt(`${dir}/ref.fa`) },
    );
    const expected: StagedItem[] = [
      { class: 'File', path: '/var/lib/cwl/inputs/1/reads.bam', location: uri(`${dir}/reads.bam`), writable: false },
      { class: 'File', path: '/var/lib/cwl/inputs/1/reads.bam.bai', location: uri(`${dir}/reads.bam.bai`), writable: false },
      { class: 'File', path: '/var/lib/cwl/inputs/1/reads.bai', location: uri(`${dir}/reads.bai`), writable: false },
      { class: 'File', path: '/var/lib/cwl/inputs/2/ref.fa', location: uri(`${dir}/ref.fa`), writable: false },
    ];
    assert.deepEqual(run.staging, expected);
    assert.deepEqual(run.argv, ['cat', '/var/lib/cwl/inputs/1/reads.bam', '/var/lib/cwl/inputs/2/ref.fa', '/var/lib/cwl/inputs/2/ref.fa']);
    const bam = run.inputs.bam as { path: string; dirname: string; size: number; secondaryFiles: { basename: string; path: string }[] };
    assert.deepEqual([bam.path, bam.dirname, bam.size], ['/var/lib/cwl/inputs/1/reads.bam', '/var/lib/cwl/inputs/1', 3]);
    assert.deepEqual(
      bam.secondaryFiles.map((s) => s.path),
      ['/var/lib/cwl/inputs/1/reads.bam.bai', '/var/lib/cwl/inputs/1/reads.bai'],
    );
  });

  it('refuses an input whose required secondary file is missing, and accepts a missing optional one', async () => {
    const text = (required: boolean): string =>
      TOOL + `baseCommand: cat\ninputs:\n  ref: {type: File, secondaryFiles: [{pattern: .fai, required: ${required}}]}\noutputs: []\n`;
    await rejectsWith(prepare(text(true), { ref: fileAt(`${dir}/ref.fa`) }), /inputs\.ref: the required secondary file ref\.fa\.fai/);
    const run = await prepare(text(false), { ref: fileAt(`${dir}/ref.fa`) });
    assert.deepEqual((run.inputs.ref as { secondaryFiles: unknown[] }).secondaryFiles, []);
  });

  it("trusts a File's own secondaryFiles when discovery is off (a workflow step), and fails then for a required one it lacks", async () => {
    const text = TOOL + 'baseCommand: cat\ninputs:\n  bam: {type: File, secondaryFiles: [.bai]}\noutputs: []\n';
    const given = fileAt(`${dir}/reads.bam`, { secondaryFiles: [fileAt(`${dir}/reads.bai`, { basename: 'reads.bam.bai' })] });
    const run = await prepare(text, { bam: given }, { discoverSecondaryFiles: false });
    assert.deepEqual(
      run.staging.map((s) => s.path),
      ['/var/lib/cwl/inputs/1/reads.bam', '/var/lib/cwl/inputs/1/reads.bam.bai'],
    );
    assert.equal(run.staging[1]?.location, uri(`${dir}/reads.bai`));
    await rejectsWith(prepare(text, { bam: fileAt(`${dir}/reads.bam`) }, { discoverSecondaryFiles: false }), /required secondary file reads\.bam\.bai/);
  });

  it('evaluates secondaryFiles expressions with self the primary File', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cat
        requirements: {InlineJavascriptRequirement: {}}
        inputs:
          bam: {type: File, secondaryFiles: ['$(self.nameroot + ".bai")']}
        outputs: []
        `,
      { bam: fileAt(`${dir}/reads.bam`) },
    );
    assert.deepEqual(
      run.staging.map((s) => s.path),
      ['/var/lib/cwl/inputs/1/reads.bam', '/var/lib/cwl/inputs/1/reads.bai'],
    );
  });

  it('loads contents for loadContents: UTF-8, 64 KiB at most (an error from v1.2 on, a cut before)', async () => {
    const text = TOOL + 'baseCommand: cat\ninputs:\n  f: {type: File, loadContents: true}\noutputs: []\n';
    const run = await prepare(text, { f: fileAt(`${dir}/ref.fa`) });
    assert.equal((run.inputs.f as { contents: string }).contents, '>chr1\nACGT\n');
    const exact = await prepare(text, { f: fileAt(`${dir}/exact.txt`) });
    assert.equal((exact.inputs.f as { contents: string }).contents.length, 64 * 1024);
    await rejectsWith(prepare(text, { f: fileAt(`${dir}/big.txt`) }), /larger than the 65536 bytes loadContents may read/);
    const older = await prepare(text.replace('v1.2', 'v1.1'), { f: fileAt(`${dir}/big.txt`) });
    assert.equal((older.inputs.f as { contents: string }).contents.length, 64 * 1024, 'before v1.2 a larger file is cut');
    await rejectsWith(prepare(text, { f: fileAt(`${dir}/latin1.txt`) }), /not UTF-8 text/);
    const list = await prepare(TOOL + 'baseCommand: cat\ninputs:\n  f: {type: "File[]", loadContents: true}\noutputs: []\n', { f: [fileAt(`${dir}/ref.fa`)] });
    assert.equal((list.inputs.f as { contents: string }[])[0]?.contents, '>chr1\nACGT\n');
  });

  it('lists Directories as loadListing or LoadListingRequirement says, and stages a Directory as one item', async () => {
    const input = (listing: string): string => TOOL + `baseCommand: ls\ninputs:\n  d: {type: Directory, loadListing: ${listing}}\noutputs: []\n`;
    const none = await prepare(input('no_listing'), { d: directoryAt(`${dir}/data`) });
    assert.equal((none.inputs.d as { listing?: unknown }).listing, undefined);
    const shallow = await prepare(input('shallow_listing'), { d: directoryAt(`${dir}/data`) });
    const entries = (shallow.inputs.d as { listing: { basename: string; path: string; listing?: unknown }[] }).listing;
    assert.deepEqual(entries.map((e) => e.basename).sort(), ['a.txt', 'sub']);
    assert.equal(entries.find((e) => e.basename === 'sub')?.listing, undefined);
    assert.equal(entries.find((e) => e.basename === 'a.txt')?.path, '/var/lib/cwl/inputs/1/data/a.txt');
    assert.deepEqual(shallow.staging, [{ class: 'Directory', path: '/var/lib/cwl/inputs/1/data', location: uri(`${dir}/data`), writable: false }]);
    const deep = await prepare(
      TOOL + 'baseCommand: ls\nrequirements: {LoadListingRequirement: {loadListing: deep_listing}}\ninputs:\n  d: Directory\noutputs: []\n',
      { d: directoryAt(`${dir}/data`) },
    );
    const sub = (deep.inputs.d as { listing: { basename: string; listing?: { path: string; size: number }[] }[] }).listing.find((e) => e.basename === 'sub');
    assert.deepEqual(
      sub?.listing?.map((e) => [e.path, e.size]),
      [['/var/lib/cwl/inputs/1/data/sub/b.txt', 2]],
    );
  });

  it('stages literal Files and Directories of a job as items to create, naming a nameless File', async () => {
    const run = await prepare(TOOL + 'baseCommand: ls\ninputs:\n  - {id: f, type: File}\n  - {id: d, type: Directory}\noutputs: []\n', {
      f: { class: 'File', basename: 'note.txt', contents: 'hello' },
      d: { class: 'Directory', basename: 'made', listing: [{ class: 'File', basename: 'in.txt', contents: 'x' }, fileAt(`${dir}/ref.fa`)] },
    });
    assert.deepEqual(run.staging, [
      { class: 'File', path: '/var/lib/cwl/inputs/1/note.txt', contents: 'hello', writable: false },
      { class: 'Directory', path: '/var/lib/cwl/inputs/2/made', writable: false },
      { class: 'File', path: '/var/lib/cwl/inputs/2/made/in.txt', contents: 'x', writable: false },
      { class: 'File', path: '/var/lib/cwl/inputs/2/made/ref.fa', location: uri(`${dir}/ref.fa`), writable: false },
    ]);
    const nameless = await prepare(TOOL + 'baseCommand: cat\ninputs:\n  f: File\noutputs: []\n', { f: { class: 'File', contents: 'anon' } });
    assert.deepEqual(nameless.staging, [{ class: 'File', path: '/var/lib/cwl/inputs/1/literal-1', contents: 'anon', writable: false }]);
  });

  it('refuses inputs that do not exist, are not of their class or have a name leaving their directory; stages under the root it is given', async () => {
    const text = TOOL + 'baseCommand: cat\ninputs:\n  f: File\noutputs: []\n';
    await rejectsWith(prepare(text, { f: fileAt(`${dir}/nothing.txt`) }), /inputs\.f: .*nothing\.txt does not exist/);
    await rejectsWith(prepare(text, { f: fileAt(`${dir}/data`) }), /is a Directory, not a File/);
    await rejectsWith(prepare(text, { f: fileAt(`${dir}/ref.fa`, { basename: '..' }) }), /cannot be staged under the name "\.\."/);
    const run = await prepare(text, { f: fileAt(`${dir}/ref.fa`) }, { stagingRoot: '/stage' });
    assert.equal(run.staging[0]?.path, '/stage/1/ref.fa');
  });
});
