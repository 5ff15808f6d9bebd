/**
 * The CWL conformance suite's container tests that test/engine/cwl-standins.test.ts runs in the stand-in images of
 * scripts/images/build-cwl-standins.sh: each one's command as a CWL runner hands it to gdflow's executor, and how its
 * outputs compare with the suite's expected output object. (Not a test file: it defines no tests.)
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobResult } from '../../src/engine/executors/index.js';
import type { Suite } from '../../scripts/cwl/suite.js';
import { CWL_STANDIN_IMAGES } from './containers.js';

const { debian, python, bash, alpine } = CWL_STANDIN_IMAGES;
/** Where a case's suite files are mounted. */
export const INPUTS = '/var/data/inputs';

export type Expected = Record<string, unknown>;

/** One of the suite's container tests, as gdflow's runner will hand it to the executor. */
export interface SuiteCase {
  /** The conformance test (its id in conformance_tests.yaml): its expected output is what the job must give. */
  id: string;
  image: string;
  /** The tool's command line for the test's job, as the container's shell gets it (inputs at /var/data/inputs). */
  command: string;
  /** Files and directories of the suite's tests/ mounted read-only at /var/data/inputs/<name>. */
  inputs?: Record<string, string>;
  /** Suite files copied into the working directory, writable (InitialWorkDirRequirement, writable: true). */
  staged?: Record<string, string>;
  /** Files the runner writes into the working directory (InitialWorkDirRequirement entries). */
  written?: Record<string, string>;
  /** Empty directories made in the working directory first. */
  dirs?: string[];
  /** Paths relative to the working directory. */
  stdin?: string;
  stdout?: string;
  /** Compares what the job left in its working directory with the test's expected output object. */
  expect: (job: Finished, expected: Expected) => void | Promise<void>;
}

export interface Finished {
  work: string;
  result: JobResult;
  stdout: string;
  stderr: string;
  suite: Suite;
}

const sha1 = (data: Buffer): string => `sha1$${createHash('sha1').update(data).digest('hex')}`;

function expectedFile(expected: Expected, output: string): { checksum: string; size?: number } {
  const file = expected[output] as { checksum?: string; size?: number } | undefined;
  assert.ok(file?.checksum, `the suite expects a File with a checksum as output ${output}`);
  return { checksum: file.checksum, ...(file.size === undefined ? {} : { size: file.size }) };
}

async function assertFile(path: string, want: { checksum: string; size?: number }): Promise<void> {
  const data = await readFile(path);
  assert.equal(sha1(data), want.checksum, `${path}: ${JSON.stringify(data.toString('utf8').slice(0, 200))}`);
  if (want.size !== undefined) assert.equal(data.length, want.size, path);
}

/** The output `output` is the file `path` of the working directory, with the suite's checksum and size. */
const fileOutput =
  (output: string, path: string) =>
  async ({ work }: Finished, expected: Expected): Promise<void> =>
    assertFile(join(work, path), expectedFile(expected, output));

/** The tool wrote cwl.output.json (the suite's args.py does) with the expected `args`. */
async function argsOutput({ work }: Finished, expected: Expected): Promise<void> {
  const written = JSON.parse(await readFile(join(work, 'cwl.output.json'), 'utf8')) as { args: unknown };
  assert.deepEqual(written.args, expected.args);
}

export const CASES: SuiteCase[] = [
  // debian:stable-slim: coreutils, findutils, util-linux's rev, /bin/sh.
  {
    id: 'stdout_redirect_docker',
    image: debian,
    command: `cat ${INPUTS}/hello.txt`,
    inputs: { 'hello.txt': 'hello.txt' },
    stdout: 'output.txt',
    expect: fileOutput('output_file', 'output.txt'),
  },
  {
    id: 'stdin_shorcut',
    image: debian,
    command: 'cat',
    inputs: { 'whale.txt': 'whale.txt' },
    stdin: 'inputs/whale.txt',
    stdout: 'output',
    expect: fileOutput('output', 'output'),
  },
  {
    // revsort.cwl's two steps (rev, then sort -r) in one job.
    id: 'wf_simple',
    image: debian,
    command: `rev ${INPUTS}/whale.txt > rev.txt && sort -r rev.txt`,
    inputs: { 'whale.txt': 'whale.txt' },
    stdout: 'output.txt',
    expect: fileOutput('output', 'output.txt'),
  },
  {
    id: 'format_checking_subclass',
    image: debian,
    command: `rev ${INPUTS}/ref.fasta`,
    inputs: { 'ref.fasta': 'ref.fasta' },
    stdout: 'output.txt',
    expect: fileOutput('output', 'output.txt'),
  },
  {
    id: 'directory_input_docker',
    image: debian,
    command: `cd ${INPUTS}/testdir && find . | sort`,
    inputs: { testdir: 'testdir' },
    stdout: 'output.txt',
    expect: fileOutput('outlist', 'output.txt'),
  },
  {
    // envvar3.cwl with runtime.outdir and runtime.tmpdir as gdflow's container executor has them.
    id: 'env_home_tmpdir_docker_no_return_code',
    image: debian,
    command: [
      'echo HOME=$HOME TMPDIR=$TMPDIR > log',
      'if [ "$HOME" = "/var/data" ] && [ "$TMPDIR" = "/tmp" ]',
      'then',
      '    echo success > results',
      'else',
      '    echo failure > results',
      'fi',
    ].join('\n'),
    expect: fileOutput('results', 'results'),
  },
  {
    id: 'docker_json_output_path',
    image: debian,
    command: `echo foo > foo && echo '{"foo": {"path": "/var/data/foo", "class": "File"} }' > cwl.output.json`,
    expect: async (job, expected) => {
      await fileOutput('foo', 'foo')(job, expected);
      assert.deepEqual(JSON.parse(await readFile(join(job.work, 'cwl.output.json'), 'utf8')), { foo: { path: '/var/data/foo', class: 'File' } });
    },
  },
  {
    // The test's entry is at an absolute path and its output directory is /output (dockerOutputDirectory): the runner
    // maps both; what the image has to do is the same head.
    id: 'iwd-container-entryname1',
    image: debian,
    command: `head -n10 ${INPUTS}/stuff.txt > head.txt`,
    inputs: { 'stuff.txt': 'loadContents/inp-filelist.txt' },
    expect: fileOutput('head', 'head.txt'),
  },
  { id: 'no_inputs_commandlinetool', image: debian, command: 'echo cwl', stdout: 'output', expect: fileOutput('output', 'output') },
  { id: 'packed_import_schema', image: debian, command: 'touch a.bam', expect: fileOutput('output_bam', 'a.bam') },
  {
    id: 'metadata',
    image: debian,
    command: 'true',
    expect: ({ result }, expected) => {
      assert.equal(result.outcome, 'succeeded');
      assert.deepEqual(expected, {});
    },
  },

  // python:3-slim: `python` and `python3`, the standard library, the suite's scripts.
  {
    id: 'cl_basic_generation',
    image: python,
    command: [
      `python ${INPUTS}/args.py bwa mem -t 2 -I 1,2,3,4 -m 3 ${INPUTS}/chr20.fa`,
      `${INPUTS}/example_human_Illumina.pe_1.fastq ${INPUTS}/example_human_Illumina.pe_2.fastq`,
    ].join(' '),
    inputs: {
      'args.py': 'args.py',
      'chr20.fa': 'chr20.fa',
      'example_human_Illumina.pe_1.fastq': 'example_human_Illumina.pe_1.fastq',
      'example_human_Illumina.pe_2.fastq': 'example_human_Illumina.pe_2.fastq',
    },
    stdout: 'output.sam',
    expect: argsOutput,
  },
  {
    id: 'iwd-passthrough2',
    image: python,
    command: `python3 ${INPUTS}/loadit.py renamed-filelist.txt`,
    inputs: { 'loadit.py': 'iwd/loadit.py' },
    written: { 'renamed-filelist.txt': '{"class": "File", "location": "inp-filelist.txt", "basename": "inp-filelist.txt"}\n' },
    stdout: 'out.txt',
    expect: fileOutput('out', 'out.txt'),
  },
  {
    id: 'cwloutput_nolimit',
    image: python,
    command: `python ${INPUTS}/mkfilelist.py`,
    inputs: { 'mkfilelist.py': 'loadContents/mkfilelist.py' },
    expect: async ({ work, suite }) => {
      const want = JSON.parse(await readFile(join(suite.root, 'tests', 'loadContents', 'compare-output.json'), 'utf8')) as unknown;
      assert.deepEqual(JSON.parse(await readFile(join(work, 'cwl.output.json'), 'utf8')), want);
    },
  },
  {
    id: 'writable_stagedfiles',
    image: python,
    command: 'python -c \'f = open("bob.txt", "r+")\nf.seek(8)\nf.write("Bob.    ")\nf.close()\n\'',
    staged: { 'bob.txt': 'whale.txt' },
    expect: fileOutput('outfile', 'bob.txt'),
  },
  {
    // search.cwl#main's two steps: index (index.py writes the secondary files beside input.txt), then search.
    id: 'initial_workdir_secondary_files_expr',
    image: python,
    command: `python ${INPUTS}/index.py input.txt && python ${INPUTS}/search.py input.txt find`,
    inputs: { 'index.py': 'index.py', 'search.py': 'search.py' },
    staged: { 'input.txt': 'whale.txt' },
    stdout: 'result.txt',
    expect: fileOutput('outfile', 'result.txt'),
  },
  {
    // A test that must fail: without NetworkAccess the tool cannot reach the network. It must fail for that
    // reason, urllib being there.
    id: 'networkaccess_disabled',
    image: python,
    command: `python -c 'import urllib.request\nassert(urllib.request.urlopen("http://commonwl.org").code == 200)\n'`,
    expect: ({ result, stderr }, expected) => {
      assert.equal(expected, undefined);
      assert.equal(result.outcome, 'failed', result.reason);
      assert.match(stderr, /URLError/);
    },
  },

  // bash:4.4: bash on PATH; its entrypoint.
  {
    id: 'colon_in_paths',
    image: bash,
    command: `bash -c 'mkdir A:Gln2Cys_result;\ncp ${INPUTS}/A:Gln2Cys A:Gln2Cys_result/;\necho Status: done!\n'`,
    inputs: { 'A:Gln2Cys': 'A:Gln2Cys' },
    stdout: 're:sult',
    expect: async (job, expected) => {
      await fileOutput('log', 're:sult')(job, expected);
      const [listed] = (expected.result as { listing: Array<{ basename: string; checksum: string; size: number }> }).listing;
      assert.ok(listed);
      assert.equal(listed.basename, 'A:Gln2Cys');
      await assertFile(join(job.work, 'A:Gln2Cys_result', 'A:Gln2Cys'), listed);
    },
  },
  {
    // docker-run-cmd.cwl gives only ["-c", "echo 'moo' > cow"]: the image's ENTRYPOINT makes it a bash command. The
    // executor's shell starts the entrypoint the way a runner will, with the arguments after it.
    id: 'docker_entrypoint',
    image: bash,
    command: `docker-entrypoint.sh -c "echo 'moo' > cow"`,
    expect: fileOutput('cow', 'cow'),
  },

  // alpine:latest: busybox's sh and applets.
  {
    id: 'legal_symlink',
    image: alpine,
    command: `mkdir adir && echo "Who's gonna drive you home" > adir/original.txt && ln -s adir/original.txt symlink.txt`,
    expect: fileOutput('output_file', 'symlink.txt'),
  },
  {
    // Must fail in the runner (the link points out of the outputs); in the image the commands work.
    id: 'illegal_symlink',
    image: alpine,
    command: `echo "Who's gonna drive you home" > /tmp/original.txt && ln -s /tmp/original.txt symlink.txt`,
    expect: async ({ result, work }) => {
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.equal(await readlink(join(work, 'symlink.txt')), '/tmp/original.txt');
    },
  },
  {
    id: 'initial_workdir_empty_writable_docker',
    image: alpine,
    command: 'touch emptyWritableDir/blurg',
    dirs: ['emptyWritableDir'],
    expect: async ({ work }, expected) => {
      const [blurg] = (expected.out as { listing: Array<{ basename: string; checksum: string }> }).listing;
      assert.ok(blurg);
      assert.equal(blurg.basename, 'blurg');
      await assertFile(join(work, 'emptyWritableDir', 'blurg'), blurg);
    },
  },
];

/** What of its original each stand-in must have (the suite's tools call these by name). */
export const COMMANDS: Record<string, { tools: string[]; probe: string; expect: RegExp[] }> = {
  [debian]: {
    tools: ['sh', 'bash', 'cat', 'rev', 'sort', 'find', 'head', 'touch', 'echo', 'true', 'test', 'cp', 'mkdir'],
    probe: 'cat /etc/debian_version; [ -x /usr/bin/apt-get ] && echo has-apt',
    expect: [/^13\.\d+$/m, /^has-apt$/m],
  },
  [python]: {
    tools: ['sh', 'python', 'python3'],
    probe: `python --version; python3 -c 'import json, os, sys, urllib.request, http.client, ssl, sqlite3, zlib; print("stdlib", sys.version_info[0])'`,
    expect: [/^Python 3\.\d+\.\d+$/m, /^stdlib 3$/m],
  },
  [bash]: {
    tools: ['sh', 'bash', 'env', 'mkdir', 'cp', 'echo', 'docker-entrypoint.sh'],
    probe: 'command -v bash; [ -e /bin/bash ] || echo no-bin-bash; bash -c \'echo "bash $BASH_VERSION"\'',
    expect: [/^\/usr\/local\/bin\/bash$/m, /^no-bin-bash$/m, /^bash 5\.\d+/m],
  },
  [alpine]: {
    tools: ['sh', 'mkdir', 'echo', 'ln', 'touch', 'cat'],
    probe: 'readlink /bin/sh; cat /etc/os-release',
    expect: [/^\/bin\/busybox$/m, /^PRETTY_NAME="gdflow stand-in for alpine:latest/m],
  },
};
