/**
 * The call-cache key across languages (src/domain/cache/work-key.ts, docs/tasks.md "One cache for every language"): the
 * same fastp step as the engine describes it for a GeneDock tool job, a CWL CommandLineTool run and a WDL task run gets
 * one key; every change that can change the result (image digest, environment, network, output names, command text,
 * input content) gives another. Table-driven: each row is a change to one description and whether the key must move.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyDifferences } from '../../src/domain/cache/differences.js';
import { cacheKeyOf, sourceFilesFor } from '../../src/domain/cache/key.js';
import { literalCommands } from '../../src/domain/cache/shell-words.js';
import { workKeyParts, type RunDescription } from '../../src/domain/cache/work-key.js';

const R1 = 'a'.repeat(64);
const R2 = 'b'.repeat(64);
const IMAGE = 'quay.io/biocontainers/fastp:0.23.2';

/** A tool job as plan.ts makes it: inputs at /var/data/inputs/<port>/<name>, outputs at outputs/<port>/<name>, /bin/sh -c. */
const tool: RunDescription = {
  script:
    'fastp -i /var/data/inputs/read1/r_1.fq -I /var/data/inputs/read2/r_2.fq -o /var/data/outputs/trimmed1/trimmed_1.fq ' +
    '-O /var/data/outputs/trimmed2/trimmed_2.fq -j /var/data/outputs/report/fastp.json -h /var/data/fastp.html -w 2 -q 15 -l 30',
  shell: 'sh',
  workDir: '/var/data',
  placed: { '/var/data/inputs/read1/r_1.fq': R1, '/var/data/inputs/read2/r_2.fq': R2 },
  fixed: {},
  outputs: ['outputs/trimmed1/trimmed_1.fq', 'outputs/trimmed2/trimmed_2.fq', 'outputs/report/fastp.json'],
  outputDirsMade: true,
  env: {},
  image: IMAGE,
  imageDigest: null,
  entrypoint: false,
  network: true,
};

/** A CWL run: every argv word quoted, inputs staged under /var/lib/cwl/inputs/<n>/, HOME and TMPDIR set, globs relative. */
const cwl: RunDescription = {
  script:
    "'fastp' '-i' '/var/lib/cwl/inputs/0/r_1.fq' '-I' '/var/lib/cwl/inputs/1/r_2.fq' '-o' 'trimmed_1.fq' '-O' 'trimmed_2.fq' " +
    "'-j' 'fastp.json' '-h' '/var/data/fastp.html' '-w' '2' '-q' '15' '-l' '30'",
  shell: 'sh',
  workDir: '/var/data',
  placed: { '/var/lib/cwl/inputs/0/r_1.fq': R1, '/var/lib/cwl/inputs/1/r_2.fq': R2 },
  fixed: {},
  outputs: ['trimmed_1.fq', 'fastp.json', 'trimmed_2.fq'],
  outputDirsMade: false,
  optionalReads: ['cwl.output.json'],
  env: { HOME: '/var/data', TMPDIR: '/tmp' },
  image: IMAGE,
  imageDigest: null,
  entrypoint: false,
  network: true,
};

/** A WDL run: the command section as written (continuation lines, indentation), run by bash. */
const wdl: RunDescription = {
  script:
    'fastp -i /var/lib/cwl/inputs/0/r_1.fq -I /var/lib/cwl/inputs/1/r_2.fq \\\n  -o trimmed_1.fq -O trimmed_2.fq \\\n  -j fastp.json -h fastp.html -w 2 -q 15 -l 30\n',
  shell: 'bash',
  workDir: '/var/data',
  placed: { '/var/lib/cwl/inputs/0/r_1.fq': R1, '/var/lib/cwl/inputs/1/r_2.fq': R2 },
  fixed: {},
  outputs: ['trimmed_1.fq', 'trimmed_2.fq', 'fastp.json'],
  outputDirsMade: false,
  env: {},
  image: IMAGE,
  imageDigest: null,
  entrypoint: false,
  network: true,
};

const key = (run: RunDescription) => cacheKeyOf(workKeyParts(run));

describe('the call-cache key across languages', () => {
  it('is the same for the fastp step as a GeneDock tool, a CWL CommandLineTool and a WDL task', () => {
    const parts = workKeyParts(tool);
    assert.deepEqual(keyDifferences(workKeyParts(cwl), parts), []);
    assert.deepEqual(keyDifferences(workKeyParts(wdl), parts), []);
    assert.equal(key(cwl), key(tool));
    assert.equal(key(wdl), key(tool));
    assert.deepEqual(parts.outputs, ['<out1>/trimmed_1.fq', '<out2>/trimmed_2.fq', '<out3>/fastp.json']);
  });

  it('names input directories in the order the command names them, and knows where each job had them', () => {
    const parts = workKeyParts(tool);
    assert.deepEqual(parts.inputs, { '<in1>/r_1.fq': R1, '<in2>/r_2.fq': R2 });
    assert.deepEqual(parts.inputPlaces, { '<in1>': '/var/data/inputs/read1', '<in2>': '/var/data/inputs/read2' });
    const changed = keyDifferences(workKeyParts({ ...tool, placed: { ...tool.placed, '/var/data/inputs/read2/r_2.fq': R1 } }), parts);
    assert.deepEqual(
      changed.map((d) => [d.part, d.name]),
      [['input', '/var/data/inputs/read2/r_2.fq']],
    );
  });

  it('keys two reads WDL staged in one directory as the tool keys them in two, unless the command names the directory', () => {
    const together: RunDescription = {
      ...wdl,
      script: wdl.script.replace('/var/lib/cwl/inputs/1/r_2.fq', '/var/lib/cwl/inputs/0/r_2.fq'),
      placed: { '/var/lib/cwl/inputs/0/r_1.fq': R1, '/var/lib/cwl/inputs/0/r_2.fq': R2 },
    };
    assert.equal(key(together), key(tool));
    assert.deepEqual(workKeyParts(together).inputPlaces, { '<in1>': '/var/lib/cwl/inputs/0', '<in2>': '/var/lib/cwl/inputs/0' });
    const listed = { ...together, script: `ls /var/lib/cwl/inputs/0 > listing.txt\n${together.script}` };
    assert.notEqual(key(listed), key({ ...tool, script: `ls /var/data/inputs/read1 > listing.txt\n${tool.script}` }), 'a directory named whole is keyed whole');
  });

  it('keeps files that belong together by name in one group: an index beside its reference is its sibling', () => {
    const bwa = (placed: Record<string, string>): RunDescription => ({
      ...wdl,
      script: 'bwa mem /s/0/ref.fa /s/0/r_1.fq > out.sam\n',
      placed,
      outputs: ['out.sam'],
    });
    const base = { '/s/0/ref.fa': R1, '/s/0/ref.fa.bwt': R2, '/s/0/r_1.fq': R1 };
    assert.notEqual(key(bwa(base)), key(bwa({ ...base, '/s/0/ref.fa.bwt': R1 })), 'the index is in the key');
    assert.deepEqual(Object.keys(workKeyParts(bwa(base)).inputs).sort(), ['<in1>/ref.fa', '<in1>/ref.fa.bwt', '<in2>/r_1.fq']);
  });

  it("finds each output of another language's job by its name in the key", () => {
    const mine = workKeyParts(tool);
    const files = ['outputs/trimmed1/trimmed_1.fq', 'outputs/trimmed2/trimmed_2.fq', 'outputs/report/fastp.json'];
    assert.deepEqual(sourceFilesFor(mine, files, workKeyParts(wdl)), ['trimmed_1.fq', 'trimmed_2.fq', 'fastp.json']);
    assert.equal(sourceFilesFor(mine, files, { v: 1 }), undefined, 'a version 1 key is never read');
  });

  const rows: Array<{ change: string; run: RunDescription; miss: boolean; part?: string }> = [
    { change: 'another image digest', run: { ...tool, imageDigest: 'sha256:1' }, miss: true, part: 'image_digest' },
    { change: 'another image', run: { ...tool, image: 'quay.io/biocontainers/fastp:0.23.4' }, miss: true, part: 'image' },
    { change: 'an environment variable', run: { ...cwl, env: { ...cwl.env, OMP_NUM_THREADS: '4' } }, miss: true, part: 'environment' },
    { change: 'HOME elsewhere', run: { ...cwl, env: { HOME: '/tmp' } }, miss: true, part: 'environment' },
    { change: 'no network', run: { ...tool, network: false }, miss: true, part: 'network' },
    { change: "the image's ENTRYPOINT", run: { ...cwl, entrypoint: true }, miss: true, part: 'entrypoint' },
    { change: 'another output glob', run: { ...cwl, outputs: ['trimmed_1.fq', 'trimmed_2.fq', 'report.json'] }, miss: true, part: 'output' },
    { change: 'a glob pattern', run: { ...cwl, outputs: ['trimmed_*.fq', 'fastp.json'] }, miss: true, part: 'output' },
    { change: 'a language-own output rule', run: { ...wdl, outputs: [...wdl.outputs, 'wdl:0123'] }, miss: true, part: 'output' },
    {
      change: 'another output name',
      run: { ...tool, script: tool.script.replace('trimmed_1.fq', 'trim_1.fq'), outputs: ['outputs/trimmed1/trim_1.fq', ...tool.outputs.slice(1)] },
      miss: true,
    },
    { change: 'the command text', run: { ...wdl, script: wdl.script.replace('-q 15', '-q 20') }, miss: true, part: 'command' },
    { change: 'the input content', run: { ...cwl, placed: { ...cwl.placed, '/var/lib/cwl/inputs/1/r_2.fq': 'c'.repeat(64) } }, miss: true, part: 'input' },
    {
      change: "the input's name",
      run: { ...cwl, script: cwl.script.replace('0/r_1.fq', '0/x_1.fq'), placed: { '/var/lib/cwl/inputs/0/x_1.fq': R1, '/var/lib/cwl/inputs/1/r_2.fq': R2 } },
      miss: true,
    },
    {
      change: 'a sibling file in the input directory',
      run: { ...cwl, placed: { ...cwl.placed, '/var/lib/cwl/inputs/0/r_1.fq.md5': 'd'.repeat(64) } },
      miss: true,
    },
    { change: 'inputs swapped', run: { ...tool, placed: { '/var/data/inputs/read1/r_1.fq': R2, '/var/data/inputs/read2/r_2.fq': R1 } }, miss: true },
    { change: 'stdout to a file', run: { ...tool, stdout: '/var/data/outputs/log/fastp.log' }, miss: true, part: 'streams' },
    {
      change: 'a staging directory elsewhere',
      run: { ...cwl, script: cwl.script.replace(/inputs\/0/g, 'in/7'), placed: { '/var/lib/cwl/in/7/r_1.fq': R1, '/var/lib/cwl/inputs/1/r_2.fq': R2 } },
      miss: false,
    },
    {
      change: 'the same words quoted otherwise',
      run: { ...tool, script: tool.script.replace('fastp -i', '"fastp" -i').replace('-q 15', "-q '15'") },
      miss: false,
    },
    { change: 'blank lines and a trailing newline', run: { ...wdl, script: `\n\n${wdl.script}\n` }, miss: false },
    { change: 'a comment (a key never drops text)', run: { ...wdl, script: `${wdl.script}# q=15\n` }, miss: true, part: 'command' },
  ];
  for (const row of rows) {
    it(`${row.miss ? 'misses' : 'hits'} with ${row.change}`, () => {
      // The three descriptions have one key (above): a row changed from any of them is compared with the tool job's.
      assert.equal(key(row.run) !== key(tool), row.miss);
      const parts = keyDifferences(workKeyParts(row.run), workKeyParts(tool)).map((d) => d.part);
      if (row.part !== undefined) assert.ok(parts.includes(row.part as never), `${row.part} among ${parts.join(', ')}`);
      if (!row.miss) assert.deepEqual(parts, []);
    });
  }
});

describe('reading a script as words', () => {
  const read: Array<[string, string, string[] | undefined]> = [
    ['quotes removed', `'fastp' "-i" a\\ b.fq`, ['fastp', '-i', 'a b.fq']],
    ['continuation lines and separators', 'a x \\\n  y\nb && c | d > out 2> err', ['a', 'x', 'y', ';', 'b', '&&', 'c', '|', 'd', '>', 'out', '2>', 'err']],
    ['a newline after &&', 'a &&\n b', ['a', '&&', 'b']],
    ['an expansion', 'fastp -w $THREADS', undefined],
    ['a command substitution', 'fastp -o $(date).fq', undefined],
    ['a glob', 'cat *.fq', undefined],
    ['echo, which shells differ on', "echo 'a\\nb' > x", undefined],
    ['cd, which moves the working directory', 'cd sub && fastp', undefined],
    ['an assignment', 'X=1 fastp', undefined],
    ['a brace expansion', 'cp a.{fq,bak}', undefined],
    ['a tilde', 'ls ~/x', undefined],
    ['fd 3', 'prog 3> x', undefined],
    ['a background job', 'prog &', undefined],
    ['a redirection first', '> x prog', undefined],
    ['only a comment', '# nothing', undefined],
    ['a comment, kept', 'cp a b # q=1', ['cp', 'a', 'b', '# q=1']],
  ];
  for (const [what, script, words] of read) {
    it(`${words ? 'reads' : 'does not read'} ${what}`, () => {
      const tokens = literalCommands(script);
      assert.deepEqual(
        tokens?.map((t) => ('w' in t ? t.w : 'op' in t ? t.op : `#${t.c}`)),
        words,
      );
    });
  }

  it('keeps the text and the shell of a script it does not read: bash and sh then differ', () => {
    const script = 'fastp -w $(nproc) -i /var/lib/cwl/inputs/0/r_1.fq';
    const sh = workKeyParts({ ...wdl, script, shell: 'sh' });
    const bash = workKeyParts({ ...wdl, script });
    assert.deepEqual(sh.command, { shell: 'sh', text: 'fastp -w $(nproc) -i <in1>/r_1.fq' });
    assert.notEqual(cacheKeyOf(sh), cacheKeyOf(bash));
  });
});
