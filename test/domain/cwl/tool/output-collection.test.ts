import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { symlinkSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { bindInputs, type CwlOutputObject } from '../../../../src/domain/cwl/index.js';
import { collectToolOutputs, prepareToolRun, ToolRunError } from '../../../../src/domain/cwl/tool/index.js';
import { LocalOutputDirectory } from '../../../../src/engine/cwl/local-files.js';
import { TOOL, yaml } from '../helpers.js';
import { RUNTIME, commandLineTool, fileAt, files, rejectsWith, sandbox, tempTree } from './helpers.js';

const sha1 = (text: string): string => `sha1$${createHash('sha1').update(text).digest('hex')}`;

/** Collects a tool's outputs from a directory holding `contents` as the finished command left it. */
async function collect(
  text: string,
  contents: Record<string, string>,
  job: Record<string, unknown> = {},
  exitCode = 0,
): Promise<{ outputs: CwlOutputObject; dir: string }> {
  const tool = await commandLineTool(text);
  const run = await prepareToolRun(tool, bindInputs(tool.inputs, job), RUNTIME, { files, evaluator: sandbox });
  const dir = tempTree(contents);
  const outputs = await collectToolOutputs(tool, run.inputs, { ...run.runtime, exitCode }, new LocalOutputDirectory(dir), {
    files,
    evaluator: sandbox,
    staged: [...run.staging, ...run.workDir],
  });
  return { outputs, dir };
}

describe('CWL CommandLineTool: collecting outputs', () => {
  it('globs Files relative to the outdir, completes them, and sorts matches as cwltool does', async () => {
    const { outputs, dir } = await collect(
      TOOL +
        yaml`
        baseCommand: x
        inputs: []
        outputs:
          all: {type: 'File[]', outputBinding: {glob: '*.txt'}}
          one: {type: File, outputBinding: {glob: [nothing.*, $(runtime.outdir)/sub/one.tsv]}}
          braces: {type: 'File[]', outputBinding: {glob: '{b,a}.txt'}}
        `,
      { 'b.txt': 'bb', 'a.txt': 'a', 'A.txt': 'AAA', '_.txt': '', '.hidden.txt': 'h', 'sub/one.tsv': 'x\ty\n', '{b,a}.txt': 'literal' },
    );
    const all = outputs.all as { basename: string }[];
    // By percent-encoded name, as Python's quote() writes it: `{` is %7B, before the letters.
    assert.deepEqual(
      all.map((f) => f.basename),
      ['{b,a}.txt', 'A.txt', '_.txt', 'a.txt', 'b.txt'],
    );
    assert.deepEqual(outputs.one, {
      class: 'File',
      location: pathToFileURL(`${dir}/sub/one.tsv`).href,
      basename: 'one.tsv',
      nameroot: 'one',
      nameext: '.tsv',
      size: 4,
      checksum: sha1('x\ty\n'),
    });
    assert.deepEqual(
      (outputs.braces as { basename: string }[]).map((f) => f.basename),
      ['{b,a}.txt'],
      'braces are not expanded (POSIX glob)',
    );
  });

  it('refuses globs outside the outdir', async () => {
    const text = (glob: string): string => TOOL + `baseCommand: x\ninputs: []\noutputs:\n  f: {type: 'File?', outputBinding: {glob: '${glob}'}}\n`;
    await rejectsWith(collect(text('/etc/passwd'), {}), /glob "\/etc\/passwd" is outside the output directory/);
    await rejectsWith(collect(text('../x'), {}), /leaves the output directory/);
  });

  it('reads contents for loadContents and evaluates outputEval with self the matches and runtime.exitCode', async () => {
    const { outputs } = await collect(
      TOOL +
        yaml`
        baseCommand: x
        successCodes: [3]
        requirements: {InlineJavascriptRequirement: {}}
        inputs: []
        outputs:
          count: {type: int, outputBinding: {glob: count.txt, loadContents: true, outputEval: '$(parseInt(self[0].contents))'}}
          code: {type: int, outputBinding: {outputEval: $(runtime.exitCode)}}
          names: {type: 'string[]', outputBinding: {glob: '*.txt', outputEval: '$(self.map(function(f) { return f.path; }))'}}
        `,
      { 'count.txt': '42\n' },
      {},
      3,
    );
    assert.deepEqual(outputs, { count: 42, code: 3, names: ['/var/data/count.txt'] });
  });

  it('lists a Directory for outputEval under loadListing, and hands it on without its listing', async () => {
    const { outputs, dir } = await collect(
      TOOL +
        yaml`
        baseCommand: x
        inputs: []
        outputs:
          dir: {type: Directory, outputBinding: {glob: results}}
          entries: {type: int, outputBinding: {glob: results, loadListing: deep_listing, outputEval: '$(self[0].listing.length)'}}
          whole: {type: Directory, outputBinding: {glob: .}}
        `,
      { 'results/a.txt': 'a', 'results/deeper/b.txt': 'b' },
    );
    assert.deepEqual(outputs.dir, { class: 'Directory', location: pathToFileURL(`${dir}/results`).href, basename: 'results' });
    assert.equal(outputs.entries, 2);
    assert.equal((outputs.whole as { location: string }).location, pathToFileURL(dir).href);
  });

  it('finds secondaryFiles beside the primary (patterns, ^, expressions); a required one missing is an error', async () => {
    const text = (required: boolean): string =>
      TOOL +
      yaml`
      baseCommand: x
      requirements: {InlineJavascriptRequirement: {}}
      inputs: []
      outputs:
        bam:
          type: File
          secondaryFiles: [.bai, ^.csi?, '$(self.nameroot).stats', {pattern: .md5, required: ${String(required)}}]
          outputBinding: {glob: reads.bam}
      `;
    const { outputs } = await collect(text(false), { 'reads.bam': 'b', 'reads.bam.bai': 'i', 'reads.stats': 's' });
    const secondary = (outputs.bam as { secondaryFiles: { basename: string; checksum: string }[] }).secondaryFiles;
    assert.deepEqual(
      secondary.map((f) => f.basename),
      ['reads.bam.bai', 'reads.stats'],
    );
    assert.equal(secondary[0]?.checksum, sha1('i'));
    const missing = /required secondary file \/var\/data\/reads\.bam\.md5/;
    await rejectsWith(collect(text(true), { 'reads.bam': 'b', 'reads.bam.bai': 'i', 'reads.stats': 's' }), missing);
  });

  it('sets formats, literal or from expressions with self each File', async () => {
    const { outputs } = await collect(
      TOOL +
        yaml`
        baseCommand: x
        inputs: {kind: string}
        outputs:
          fixed: {type: File, format: 'http://example.com/fastq', outputBinding: {glob: a.fq}}
          computed: {type: 'File[]', format: 'http://example.com/$(inputs.kind)/$(self.nameext)', outputBinding: {glob: '*.fq'}}
        `,
      { 'a.fq': '@a' },
      { kind: 'reads' },
    );
    assert.equal((outputs.fixed as { format: string }).format, 'http://example.com/fastq');
    assert.deepEqual(
      (outputs.computed as { format: string }[]).map((f) => f.format),
      ['http://example.com/reads/.fq'],
    );
  });

  it('collects stdout and stderr outputs from the files the run wrote them to', async () => {
    const { outputs } = await collect(TOOL + 'baseCommand: x\nstdout: out.txt\ninputs: []\noutputs:\n  o: stdout\n', { 'out.txt': 'hello\n' });
    assert.equal((outputs.o as { checksum: string }).checksum, sha1('hello\n'));
  });

  it('names a missing required output, returns null for a missing optional one, and refuses many files for one', async () => {
    const text = TOOL + 'baseCommand: x\ninputs: []\noutputs:\n  needed: {type: File, outputBinding: {glob: result.bam}}\n';
    await rejectsWith(collect(text, {}), /outputs\.needed: no file matches the glob \["result\.bam"\]/);
    const optional = await collect(TOOL + "baseCommand: x\ninputs: []\noutputs:\n  maybe: {type: 'File?', outputBinding: {glob: x}}\n", {});
    assert.deepEqual(optional.outputs, { maybe: null });
    await rejectsWith(
      collect(TOOL + "baseCommand: x\ninputs: []\noutputs:\n  one: {type: File, outputBinding: {glob: '*'}}\n", { a: '1', b: '2' }),
      /2 files match the glob/,
    );
    await rejectsWith(
      collect(
        TOOL + 'baseCommand: x\ninputs: []\noutputs:\n  n: {type: int, outputBinding: {glob: n.txt, loadContents: true, outputEval: "$(self[0].contents)"}}\n',
        { 'n.txt': '5' },
      ),
      /outputs\.n: must be int, not the string "5"/,
    );
  });

  it('collects record outputs field by field', async () => {
    const { outputs } = await collect(
      TOOL +
        yaml`
        baseCommand: x
        inputs: []
        outputs:
          pair:
            type:
              type: record
              fields:
                left: {type: File, outputBinding: {glob: l.txt}}
                right: {type: 'File?', outputBinding: {glob: r.txt}}
        `,
      { 'l.txt': 'l' },
    );
    assert.deepEqual(Object.keys(outputs.pair as object), ['left', 'right']);
    assert.equal((outputs.pair as { right: unknown }).right, null);
  });

  it('takes cwl.output.json instead, its locations relative to the outdir, and refuses files outside it', async () => {
    const text = TOOL + 'baseCommand: x\ninputs: []\noutputs:\n  f: File\n  n: int\n';
    const { outputs, dir } = await collect(text, {
      'cwl.output.json': JSON.stringify({ f: { class: 'File', location: 'sub/made.txt' }, n: 7, extra: 'kept' }),
      'sub/made.txt': 'made',
    });
    assert.deepEqual(outputs.f, {
      class: 'File',
      location: pathToFileURL(`${dir}/sub/made.txt`).href,
      basename: 'made.txt',
      nameroot: 'made',
      nameext: '.txt',
      size: 4,
      checksum: sha1('made'),
    });
    assert.deepEqual([outputs.n, outputs.extra], [7, 'kept']);
    const sandboxPath = await collect(text, { 'cwl.output.json': JSON.stringify({ f: { class: 'File', path: '/var/data/a' }, n: 1 }), a: 'a' });
    assert.equal((sandboxPath.outputs.f as { location: string }).location, pathToFileURL(`${sandboxPath.dir}/a`).href);
    const outside = (location: string): Record<string, string> => ({ 'cwl.output.json': JSON.stringify({ f: { class: 'File', location }, n: 1 }) });
    await rejectsWith(collect(text, outside('file:///etc/passwd')), /neither in the output directory nor an input/);
    await rejectsWith(collect(text, outside('../../etc/passwd')), /neither in the output directory/);
    await rejectsWith(collect(text, { 'cwl.output.json': '[1]' }), /cwl\.output\.json must hold an object/);
  });

  it('refuses a symbolic link that leads outside the outdir, and follows one inside it', async () => {
    const text = TOOL + 'baseCommand: x\ninputs: []\noutputs:\n  f: {type: File, outputBinding: {glob: link.txt}}\n';
    const outside = tempTree({ 'secret.txt': 'secret' });
    const tool = await commandLineTool(text);
    const run = await prepareToolRun(tool, {}, RUNTIME, { files });
    const dir = tempTree({ 'adir/original.txt': 'inside' });
    symlinkSync(`${outside}/secret.txt`, `${dir}/link.txt`);
    const collecting = collectToolOutputs(tool, run.inputs, run.runtime, new LocalOutputDirectory(dir), { files });
    await rejectsWith(collecting, /link\.txt leads outside the output directory/);
    const legal = tempTree({ 'adir/original.txt': 'inside' });
    symlinkSync('adir/original.txt', `${legal}/link.txt`);
    const outputs = await collectToolOutputs(tool, run.inputs, run.runtime, new LocalOutputDirectory(legal), { files });
    assert.equal((outputs.f as { checksum: string }).checksum, sha1('inside'));
  });

  it('keeps the location of an input passed through, also when InitialWorkDir put it in the outdir', async () => {
    const inputs = tempTree({ 'in.txt': 'input' });
    const { outputs } = await collect(
      TOOL +
        yaml`
        baseCommand: x
        requirements:
          InitialWorkDirRequirement: {listing: [{entry: $(inputs.staged), entryname: staged.txt}]}
        inputs: {passed: File, staged: File}
        outputs:
          same: {type: File, outputBinding: {outputEval: $(inputs.passed)}}
          globbed: {type: File, outputBinding: {glob: staged.txt}}
        `,
      { 'staged.txt': 'the engine copied or bound the input here' },
      { passed: fileAt(`${inputs}/in.txt`), staged: fileAt(`${inputs}/in.txt`) },
    );
    const location = pathToFileURL(`${inputs}/in.txt`).href;
    assert.deepEqual([(outputs.same as { location: string }).location, (outputs.same as { checksum: string }).checksum], [location, sha1('input')]);
    assert.deepEqual([(outputs.globbed as { location: string }).location, (outputs.globbed as { basename: string }).basename], [location, 'staged.txt']);
  });
});

it('fails a collection with a ToolRunError, the permanent failure of the step', async () => {
  const tool = await commandLineTool(TOOL + 'baseCommand: x\ninputs: []\noutputs:\n  f: {type: File, outputBinding: {glob: none}}\n');
  const runtime = { ...RUNTIME, cores: 1, ram: 256, outdirSize: 1024, tmpdirSize: 1024 };
  await assert.rejects(collectToolOutputs(tool, {}, runtime, new LocalOutputDirectory(tempTree()), { files }), ToolRunError);
});
