/**
 * `gdflow cwl run`, the built CLI against a real server over HTTP (the one GDFLOW_ENDPOINT names), and standalone on
 * the server it starts for itself: the cwl-runner contract (the output object on stdout, files in --outdir, exit 0,
 * 33 for unsupported features, 1 otherwise, 2 for a bad command line), the inputs uploaded once, the run a task like
 * any other, Ctrl-C stopping it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, cliFixture, collect, spawnCli, waitForOutput, type CliFixture } from './support.js';

let f: CliFixture;

const sha1 = (text: string): string => `sha1$${createHash('sha1').update(text).digest('hex')}`;

function write(path: string, text: string): void {
  const full = join(f.dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
}

/** A tool that concatenates a file (and its secondary file) with every file of a directory, keeping the index beside. */
const CONCAT = `cwlVersion: v1.2
class: CommandLineTool
requirements:
  ShellCommandRequirement: {}
inputs:
  reads: {type: File, secondaryFiles: [.idx]}
  more: Directory
arguments:
  - {valueFrom: "cat $(inputs.reads.path) $(inputs.reads.path).idx $(inputs.more.path)/* > all.txt && cp $(inputs.reads.path).idx all.txt.idx", shellQuote: false}
outputs:
  all: {type: File, outputBinding: {glob: all.txt}, secondaryFiles: [.idx]}
`;

/** The tool's output made a Directory by a second step: a workflow with a file, a directory and a parameter. */
const WORKFLOW = `cwlVersion: v1.2
class: Workflow
requirements:
  InlineJavascriptRequirement: {}
inputs:
  reads: {type: File, secondaryFiles: [.idx]}
  more: Directory
  name: {type: string, default: result}
steps:
  concat:
    run: tools/concat.cwl
    in: {reads: reads, more: more}
    out: [all]
  pack:
    run:
      class: CommandLineTool
      requirements:
        InitialWorkDirRequirement:
          listing: [{entryname: "$(inputs.name)/all.txt", entry: "$(inputs.all)"}]
      inputs: {all: File, name: string}
      baseCommand: 'true'
      outputs:
        folder: {type: Directory, outputBinding: {glob: $(inputs.name)}}
    in: {all: concat/all, name: name}
    out: [folder]
outputs:
  all: {type: File, outputSource: concat/all}
  folder: {type: Directory, outputSource: pack/folder}
`;

before(async () => {
  f = await cliFixture();
  write('tools/concat.cwl', CONCAT);
  write('wf.cwl', WORKFLOW);
  write('data/reads.txt', 'reads\n');
  write('data/reads.txt.idx', 'index\n');
  write('data/more/a.txt', 'a\n');
  write('data/more/b.txt', 'b\n');
  write('job.yml', 'reads: {class: File, path: data/reads.txt}\nmore: {class: Directory, path: data/more}\n');
  // A run that goes on until it is stopped.
  write('sleep.cwl', 'cwlVersion: v1.2\nclass: CommandLineTool\ninputs: []\noutputs: []\nbaseCommand: [sleep, "300"]\n');
});
after(async () => f.close());

describe('gdflow cwl run on the configured server', () => {
  it('runs a workflow as a task, prints its output object and writes its files into --outdir', async () => {
    const run = await f.run(['cwl', 'run', '--outdir=out', '--quiet', 'wf.cwl', 'job.yml']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '', '--quiet: nothing on stderr');
    const outputs = run.json();
    const outdir = join(f.dir, 'out');
    const all = 'reads\nindex\na\nb\n';
    assert.deepEqual(outputs.all, {
      class: 'File',
      location: `file://${outdir}/all.txt`,
      path: join(outdir, 'all.txt'),
      basename: 'all.txt',
      size: all.length,
      checksum: sha1(all),
      nameroot: 'all',
      nameext: '.txt',
      secondaryFiles: [
        {
          class: 'File',
          location: `file://${outdir}/all.txt.idx`,
          path: join(outdir, 'all.txt.idx'),
          basename: 'all.txt.idx',
          size: 6,
          checksum: sha1('index\n'),
          nameroot: 'all.txt',
          nameext: '.idx',
        },
      ],
    });
    assert.equal(readFileSync(join(outdir, 'all.txt'), 'utf8'), all);
    assert.equal(outputs.folder.class, 'Directory');
    assert.equal(outputs.folder.path, join(outdir, 'result'));
    // The InitialWorkDir entry took its secondary file along, as CWL stages a File's secondary files beside it.
    assert.deepEqual(
      outputs.folder.listing.map((e: { basename: string; checksum: string }) => [e.basename, e.checksum]),
      [
        ['all.txt', sha1(all)],
        ['all.txt.idx', sha1('index\n')],
      ],
    );
    // The run is a task of the project like any other.
    const tasks = (await f.client.listTasks()).task_list;
    assert.equal(tasks[0]!.status, 'succeeded');
  });

  it('uploads the inputs once: a second run finds them in the data store, and says so without --quiet', async () => {
    const run = await f.run(['cwl', 'run', '--outdir', 'out2', 'wf.cwl', 'job.yml']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /^inputs: 0 files uploaded \(0 B\), 4 already in the data store$/m);
    assert.match(run.stderr, /^task \S+ \(([0-9a-f]{24})\) started$/m);
    assert.match(run.stderr, /: succeeded \d+\/\d+ jobs done$/m);
  });

  it('keeps integers beyond 2^53 exact from the document and the job, through references, a step and the store, to stdout', async () => {
    const huge = '4200000000000000000000000000000000000000000';
    write(
      'big-tool.cwl',
      `cwlVersion: v1.2\nclass: CommandLineTool\ninputs:\n  big: long\n  huge: {type: double, default: ${huge}}\n` +
        `arguments: ['{"big": $(inputs.big), "huge": $(inputs.huge), "words": "$(inputs.big) $(inputs.huge)", "all": $(inputs)}']\n` +
        'baseCommand: echo\nstdout: cwl.output.json\noutputs:\n  big: long\n  huge: double\n  words: string\n  all: Any\n',
    );
    write(
      'big-wf.cwl',
      'cwlVersion: v1.2\nclass: Workflow\ninputs:\n  big: long\nsteps:\n  echo: {run: big-tool.cwl, in: {big: big}, out: [big, huge, words, all]}\n' +
        'outputs:\n  big: {type: long, outputSource: echo/big}\n  huge: {type: double, outputSource: echo/huge}\n' +
        '  words: {type: string, outputSource: echo/words}\n  all: {type: Any, outputSource: echo/all}\n',
    );
    write('big-job.yml', 'big: 9223372036854775807\n');
    const run = await f.run(['cwl', 'run', '--quiet', 'big-wf.cwl', 'big-job.yml']);
    assert.equal(run.status, 0, run.stderr);
    // The output object as printed, digit for digit (JSON.parse would read both numbers as doubles).
    assert.match(run.stdout, /^ {4}"big": 9223372036854775807,$/m);
    assert.match(run.stdout, new RegExp(`^ {4}"huge": ${huge},$`, 'm'));
    assert.match(run.stdout, new RegExp(`^ {4}"words": "9223372036854775807 ${huge}"$`, 'm'));
    assert.match(run.stdout, new RegExp(`^ {8}"huge": ${huge}$`, 'm'));
    // A long beyond 64 bits is refused, naming the input, before anything runs.
    write('bigger-job.yml', 'big: 9223372036854775808\n');
    const refused = await f.run(['cwl', 'run', '--quiet', 'big-wf.cwl', 'bigger-job.yml']);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /big: must be long, not the whole number 9223372036854775808/);
  });

  it('exits 33 naming what gdflow does not support, found here or by the server', async () => {
    write(
      'mpi.cwl',
      'cwlVersion: v1.2\nclass: CommandLineTool\nrequirements: [{class: MPIRequirement, processes: 2}]\ninputs: []\noutputs: []\nbaseCommand: "true"\n',
    );
    const local = await f.run(['cwl', 'run', '--quiet', 'mpi.cwl']);
    assert.equal(local.status, 33, local.stderr);
    assert.match(local.stderr, /^gdflow: unsupported: MPIRequirement: .*mpi\.cwl:3:\d+: unknown requirement class 'MPIRequirement'/m);
    write(
      'dockerfile.cwl',
      'cwlVersion: v1.2\nclass: CommandLineTool\nrequirements: [{class: DockerRequirement, dockerFile: "FROM debian"}]\ninputs: []\noutputs: []\nbaseCommand: "true"\n',
    );
    const server = await f.run(['cwl', 'run', '--quiet', 'dockerfile.cwl']);
    assert.equal(server.status, 33, server.stderr);
    assert.match(server.stderr, /^gdflow: unsupported: .*DockerRequirement with dockerFile/m);
    write('http-job.yml', 'reads: {class: File, location: "https://example.com/reads.txt"}\nmore: {class: Directory, path: data/more}\n');
    const http = await f.run(['cwl', 'run', '--quiet', 'tools/concat.cwl', 'http-job.yml']);
    assert.equal(http.status, 33, http.stderr);
    assert.match(http.stderr, /unsupported: https locations: inputs\.reads: https:\/\/example\.com\/reads\.txt/);
  });

  it('exits 1 for an invalid document or job and a failed run, with the reasons; 2 for a bad command line', async () => {
    write('typo.cwl', 'cwlVersion: v1.2\nclass: CommandLineTool\ninputs: []\noutputs: []\nbaseComand: "true"\n');
    const typo = await f.run(['cwl', 'run', 'typo.cwl']);
    assert.equal(typo.status, 1);
    assert.match(typo.stderr, /typo\.cwl:5:1: invalid field 'baseComand' in CommandLineTool; did you mean 'baseCommand'\?/);
    write('missing-job.yml', 'reads: {class: File, path: data/none.txt}\nmore: {class: Directory, path: data/more}\n');
    const missing = await f.run(['cwl', 'run', 'tools/concat.cwl', 'missing-job.yml']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^gdflow: inputs\.reads: \S+\/data\/none\.txt does not exist$/m);
    write('fails.cwl', 'cwlVersion: v1.2\nclass: CommandLineTool\ninputs: []\noutputs: []\nbaseCommand: [sh, -c, "echo broken >&2; exit 3"]\n');
    const failed = await f.run(['cwl', 'run', '--quiet', 'fails.cwl']);
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /^task \S+ \([0-9a-f]{24}\) failed/m);
    assert.match(failed.stderr, /^ {4}broken$/m, "the end of the failed job's stderr");
    assert.equal(failed.stdout, '');
    const usage = await f.run(['cwl', 'run']);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /missing required argument 'document'/);
    const executor = await f.run(['cwl', 'run', '--executor', 'host', 'fails.cwl']);
    assert.equal(executor.status, 2);
    assert.match(executor.stderr, /--executor is for the server gdflow cwl run starts/);
  });

  it("stops the run's task on Ctrl-C and exits 130", async () => {
    const child = spawnCli(['cwl', 'run', 'sleep.cwl'], { env: f.env, cwd: f.dir });
    const ended = collect(child);
    const text = await waitForOutput(child, /: running 0\/1 jobs done; running: main/, { stderr: true });
    const taskId = /\(([0-9a-f]{24})\) started/.exec(text)![1]!;
    child.kill('SIGINT');
    const result = await ended;
    assert.equal(result.status, 130, result.stderr);
    assert.match(result.stderr, /stopping task [0-9a-f]{24}/);
    assert.match(result.stderr, /interrupted: task \S+ \([0-9a-f]{24}\) stopped/);
    assert.equal((await f.client.getTask(taskId)).status, 'stopped');
  });
});

describe('gdflow cwl run with no server configured', () => {
  it('starts a server of its own for the run, on a temporary data root removed at the end', async () => {
    const env = { GDFLOW_CONFIG_FILE: join(f.dir, 'no-config.yml') };
    const run = await cli(['cwl', 'run', '--outdir', 'standalone', 'wf.cwl', 'job.yml'], { env, cwd: f.dir });
    assert.equal(run.status, 0, run.stderr);
    const dataDir = /data in (\S+), removed at the end/.exec(run.stderr)?.[1];
    assert.ok(dataDir, run.stderr);
    assert.equal(existsSync(dataDir), false, 'the data root is gone');
    assert.equal(run.json().all.checksum, sha1('reads\nindex\na\nb\n'));
    assert.equal(existsSync(join(f.dir, 'standalone', 'result', 'all.txt')), true);
  });

  it("removes its data root when killed (SIGTERM, as a test driver's timeout does), and refuses a bad --executor (2)", async () => {
    const env = { GDFLOW_CONFIG_FILE: join(f.dir, 'no-config.yml') };
    const child = spawnCli(['cwl', 'run', 'sleep.cwl'], { env, cwd: f.dir });
    const ended = collect(child);
    const text = await waitForOutput(child, /: running 0\/1 jobs done; running: main/, { stderr: true });
    const dataDir = /data in (\S+), removed at the end/.exec(text)![1]!;
    assert.equal(existsSync(dataDir), true);
    child.kill('SIGTERM');
    const result = await ended;
    assert.equal(result.status, 143, result.stderr);
    assert.equal(existsSync(dataDir), false, 'the data root is gone');
    const bad = await cli(['cwl', 'run', '--executor', 'nonsense', 'sleep.cwl'], { env, cwd: f.dir });
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /executor/);
  });
});
