import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { TOOL, yaml } from '../helpers.js';
import { fileAt, prepare, rejectsWith, tempTree } from './helpers.js';

describe('CWL CommandLineTool: InitialWorkDirRequirement', () => {
  const dir = tempTree({ 'reads.fq': '@r\n', 'reads.fq.fai': 'i', 'other.txt': 'o' });
  const reads = fileAt(`${dir}/reads.fq`);
  const readsUri = pathToFileURL(`${dir}/reads.fq`).href;

  it('writes Dirents of text under their entryname (expressions evaluated, trailing whitespace kept) in the outdir', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cat
        requirements:
          InitialWorkDirRequirement:
            listing:
              - {entryname: $(inputs.name).conf, entry: "threads=$(inputs.n)\\n"}
              - {entryname: sub/notes.txt, entry: plain, writable: true}
        inputs: {name: string, n: int}
        outputs: []
        `,
      { name: 'run', n: 4 },
    );
    assert.deepEqual(run.workDir, [
      { class: 'File', path: '/var/data/run.conf', contents: 'threads=4\n', writable: false },
      { class: 'File', path: '/var/data/sub/notes.txt', contents: 'plain', writable: true },
    ]);
  });

  it('writes any other value of an entry as JSON (v1.2), and refuses it before v1.2', async () => {
    const text = (version: string): string =>
      `cwlVersion: ${version}\nclass: CommandLineTool\nbaseCommand: cat\nrequirements:\n  InitialWorkDirRequirement:\n    listing:\n` +
      '      - {entryname: values.json, entry: $(inputs.values)}\ninputs:\n  values: {type: Any}\noutputs: []\n';
    const run = await prepare(text('v1.2'), { values: { b: [1, 'two', null], a: 0.5 } });
    assert.equal(run.workDir[0]?.contents, '{"a": 0.5, "b": [1, "two", null]}');
    await rejectsWith(prepare(text('v1.1'), { values: { a: 1 } }), /before CWL v1\.2 an entry must give text, a File or a Directory/);
  });

  it('moves an input it names into the outdir (renamed by entryname): the input object and the command line follow', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cat
        requirements:
          InitialWorkDirRequirement:
            listing: [{entryname: renamed.fq, entry: $(inputs.reads)}]
        inputs:
          reads: {type: File, secondaryFiles: [.fai], inputBinding: {}}
          other: {type: File, inputBinding: {}}
        outputs: []
        `,
      { reads, other: fileAt(`${dir}/other.txt`) },
    );
    assert.deepEqual(
      run.staging.map((s) => s.path),
      ['/var/lib/cwl/inputs/1/other.txt'],
    );
    assert.deepEqual(run.workDir, [
      { class: 'File', path: '/var/data/renamed.fq', location: readsUri, writable: false },
      { class: 'File', path: '/var/data/reads.fq.fai', location: `${readsUri}.fai`, writable: false },
    ]);
    assert.deepEqual(run.argv, ['cat', '/var/lib/cwl/inputs/1/other.txt', '/var/data/renamed.fq']);
    const staged = run.inputs.reads as { path: string; basename: string; nameroot: string };
    assert.deepEqual([staged.path, staged.basename, staged.nameroot], ['/var/data/renamed.fq', 'renamed.fq', 'renamed']);
  });

  it('stages Files, lists of Files, and Dirent-like objects that expressions give, and skips nulls', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: ls
        requirements:
          InlineJavascriptRequirement: {}
          InitialWorkDirRequirement:
            listing:
              - $(inputs.many)
              - $(null)
              - '$({"entryname": "made.txt", "entry": "made"})'
              - {entry: $(inputs.many), writable: true}
              - '$({"class": "Directory", "basename": "d", "listing": [{"class": "File", "basename": "x", "contents": "y"}]})'
        inputs:
          many: 'File[]'
        outputs: []
        `,
      { many: [reads, fileAt(`${dir}/other.txt`)] },
    );
    assert.deepEqual(
      run.workDir.map((item) => [item.path, item.writable, item.contents ?? item.location ?? '']),
      [
        ['/var/data/reads.fq', false, readsUri],
        ['/var/data/other.txt', false, pathToFileURL(`${dir}/other.txt`).href],
        ['/var/data/made.txt', false, 'made'],
        ['/var/data/reads.fq', true, readsUri],
        ['/var/data/other.txt', true, pathToFileURL(`${dir}/other.txt`).href],
        ['/var/data/d', false, ''],
        ['/var/data/d/x', false, 'y'],
      ],
    );
    await rejectsWith(
      prepare(
        TOOL +
          'baseCommand: ls\nrequirements:\n  InitialWorkDirRequirement:\n    listing: [{entryname: x, entry: $(inputs.many)}]\n' +
          'inputs: {many: "File[]"}\noutputs: []\n',
        { many: [reads] },
      ),
      /entryname .* cannot name the list of Files/,
    );
  });

  it('takes a whole listing from one expression: Files, Dirents, lists of Files, nulls', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: ls
        requirements:
          InlineJavascriptRequirement: {}
          InitialWorkDirRequirement:
            listing: '$([inputs.one, null, [inputs.one], {"entryname": "t.txt", "entry": "text"}])'
        inputs: {one: File}
        outputs: []
        `,
      { one: reads },
    );
    assert.deepEqual(
      run.workDir.map((item) => item.path),
      ['/var/data/reads.fq', '/var/data/reads.fq', '/var/data/t.txt'],
    );
    await rejectsWith(
      prepare(TOOL + 'baseCommand: ls\nrequirements:\n  InitialWorkDirRequirement:\n    listing: $(inputs.n)\ninputs: {n: int}\noutputs: []\n', { n: 1 }),
      /listing .* must give a list/,
    );
  });

  it('refuses names that leave the outdir, and absolute names unless the run is in a container DockerRequirement requires', async () => {
    const listing = (name: string, docker = ''): string =>
      TOOL +
      `baseCommand: ls\nrequirements:\n  ${docker}InitialWorkDirRequirement:\n    listing: [{entryname: '${name}', entry: x}]\n` +
      'inputs: []\noutputs: []\n';
    await rejectsWith(prepare(listing('../escape')), /leaves the output directory/);
    await rejectsWith(prepare(listing('a/../../escape')), /leaves the output directory/);
    await rejectsWith(prepare(listing('/etc/x')), /is absolute, which needs DockerRequirement under requirements/);
    const docker = "DockerRequirement: {dockerPull: 'debian:stable'}\n  ";
    await rejectsWith(prepare(listing('/etc/x', docker)), /which needs the run to be in a container/);
    const run = await prepare(listing('/etc/x', docker), {}, { container: true });
    assert.deepEqual(run.workDir, [{ class: 'File', path: '/etc/x', contents: 'x', writable: false }]);
    const normal = await prepare(listing('./a//b/../c.txt'));
    assert.equal(normal.workDir[0]?.path, '/var/data/a/c.txt');
  });

  it('needs an entryname for text, and refuses what is not a File, Directory or Dirent', async () => {
    await rejectsWith(
      prepare(TOOL + 'baseCommand: ls\nrequirements:\n  InitialWorkDirRequirement:\n    listing: [{entry: text}]\ninputs: []\noutputs: []\n'),
      /needs an entryname/,
    );
    await rejectsWith(
      prepare(
        TOOL +
          'baseCommand: ls\nrequirements:\n  InlineJavascriptRequirement: {}\n  InitialWorkDirRequirement:\n    listing: [$(42)]\ninputs: []\noutputs: []\n',
      ),
      /must give Files, Directories or Dirents/,
    );
  });
});
