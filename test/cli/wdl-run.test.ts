/**
 * `gdflow wdl run` and `gdflow wdl check` as a user runs them (docs/wdl.md, "gdflow wdl run"): a document with its
 * imports read from disk and its local File inputs, run on the configured server, its outputs printed as miniwdl does
 * and downloaded; a document in error, a missing input file, a failed run and a bad command line each with its exit
 * code and a message naming what is wrong, nothing started when the fault is found on the client.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LIB, MAIN } from '../helpers/wdl.js';
import { cliFixture, type CliFixture } from './support.js';

const COUNT = `version 1.0
task count {
  input {
    File lines
    Int fail_with = 0
  }
  command <<<
    wc -l < ~{lines}
    exit ~{fail_with}
  >>>
  output {
    Int n = read_int(stdout())
  }
}
`;

/** A workflow whose File inputs are a Map's keys. */
const TALLY = `version 1.1
import "count.wdl"
workflow tally {
  input {
    Map[File, Int] lines
  }
  scatter (p in as_pairs(lines)) {
    call count.count { input: lines = p.left }
  }
  output {
    Array[Int] n = count.n
  }
}
`;

/** A task whose outputs are Directories (one with a subdirectory, one empty) and a File inside one of them. */
const TREE = `version 1.1
task tree {
  command <<<
    mkdir -p tree/sub empty
    echo A > tree/a.txt
    echo B > tree/sub/b.txt
  >>>
  output {
    Directory d = "tree"
    Directory e = "empty"
    File f = "tree/a.txt"
  }
}
`;

describe('gdflow wdl run and check', () => {
  let f: CliFixture;

  before(async () => {
    f = await cliFixture({ executor: 'host' });
    mkdirSync(join(f.dir, 'lib'));
    writeFileSync(join(f.dir, 'hello.wdl'), MAIN);
    writeFileSync(join(f.dir, 'lib', 'tasks.wdl'), LIB);
    writeFileSync(join(f.dir, 'count.wdl'), COUNT);
    writeFileSync(join(f.dir, 'three.txt'), 'a\nb\nc\n');
  });
  after(async () => f?.close());

  const taskCount = async () => (await f.client.listTasks({})).task_list.length;

  it('runs a workflow with its imports; its outputs printed, Files downloaded into --outdir', async () => {
    writeFileSync(join(f.dir, 'hello.json'), JSON.stringify({ 'hello.who': 'cli' }));
    const outdir = join(f.dir, 'out-hello');
    const ran = await f.run(['wdl', 'run', '-i', join(f.dir, 'hello.json'), '--outdir', outdir, join(f.dir, 'hello.wdl')]);
    assert.equal(ran.status, 0, ran.stderr);
    assert.deepEqual(ran.json(), { outputs: { 'hello.out': join(outdir, 'stdout') } });
    assert.equal(readFileSync(join(outdir, 'stdout'), 'utf8'), 'hello cli\n');
    assert.match(ran.stderr, /succeeded/);
  });

  it('downloads Directory outputs into --outdir with their trees (an empty one as an empty directory)', async () => {
    writeFileSync(join(f.dir, 'tree.wdl'), TREE);
    const outdir = join(f.dir, 'out-tree');
    const ran = await f.run(['wdl', 'run', '--quiet', '--outdir', outdir, join(f.dir, 'tree.wdl')]);
    assert.equal(ran.status, 0, ran.stderr);
    assert.deepEqual(ran.json(), { outputs: { 'tree.d': join(outdir, 'tree'), 'tree.e': join(outdir, 'empty'), 'tree.f': join(outdir, 'a.txt') } });
    assert.equal(readFileSync(join(outdir, 'tree', 'a.txt'), 'utf8'), 'A\n');
    assert.equal(readFileSync(join(outdir, 'tree', 'sub', 'b.txt'), 'utf8'), 'B\n');
    assert.equal(readFileSync(join(outdir, 'a.txt'), 'utf8'), 'A\n');
    assert.deepEqual(readdirSync(join(outdir, 'empty')), []);
  });

  it('runs one task with --task, its local File input uploaded (relative to the inputs file)', async () => {
    writeFileSync(join(f.dir, 'count.json'), JSON.stringify({ 'count.lines': 'three.txt' }));
    const ran = await f.run([
      'wdl',
      'run',
      '--quiet',
      '--task',
      'count',
      '-i',
      join(f.dir, 'count.json'),
      '--outdir',
      join(f.dir, 'out-count'),
      join(f.dir, 'count.wdl'),
    ]);
    assert.equal(ran.status, 0, ran.stderr);
    assert.deepEqual(ran.json(), { outputs: { 'count.n': 3 } });
    assert.equal(ran.stderr, '');
  });

  it("uploads a Map's File keys as its File values (Map[File, Int])", async () => {
    writeFileSync(join(f.dir, 'tally.wdl'), TALLY);
    writeFileSync(join(f.dir, 'tally.json'), JSON.stringify({ 'tally.lines': { 'three.txt': 2 } }));
    const ran = await f.run(['wdl', 'run', '--quiet', '-i', join(f.dir, 'tally.json'), '--outdir', join(f.dir, 'out-tally'), join(f.dir, 'tally.wdl')]);
    assert.equal(ran.status, 0, ran.stderr);
    assert.deepEqual(ran.json(), { outputs: { 'tally.n': [3] } });
  });

  it('a failed run: exit 1, the failed call and its stderr on stderr', async () => {
    writeFileSync(join(f.dir, 'fail.json'), JSON.stringify({ 'count.lines': 'three.txt', 'count.fail_with': 3 }));
    const ran = await f.run(['wdl', 'run', '--quiet', '--task', 'count', '-i', join(f.dir, 'fail.json'), join(f.dir, 'count.wdl')]);
    assert.equal(ran.status, 1, ran.stderr);
    assert.match(ran.stderr, /failed/);
    assert.match(ran.stderr, /exit code 3/);
    assert.equal(ran.stdout, '');
  });

  it('refuses on the client, starting nothing: a document in error, a missing input file, a bad option', async () => {
    const before = await taskCount();
    writeFileSync(join(f.dir, 'bad.wdl'), 'version 1.0\nworkflow w {\n  call nope\n}\n');
    const bad = await f.run(['wdl', 'run', join(f.dir, 'bad.wdl')]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /bad\.wdl:3:3: .*nope/);
    writeFileSync(join(f.dir, 'missing.json'), JSON.stringify({ 'count.lines': 'nowhere.txt' }));
    const missing = await f.run(['wdl', 'run', '--task', 'count', '-i', join(f.dir, 'missing.json'), join(f.dir, 'count.wdl')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /inputs count\.lines: there is no file .*nowhere\.txt/);
    const option = await f.run(['wdl', 'run', '--executor', 'podman', join(f.dir, 'count.wdl')]);
    assert.equal(option.status, 2);
    assert.match(option.stderr, /--executor is for the server gdflow wdl run starts/);
    assert.equal(await taskCount(), before);
  });

  it('gdflow wdl check: a document and its imports checked, an error with its file, line and column', async () => {
    const good = await f.run(['wdl', 'check', join(f.dir, 'hello.wdl')]);
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout, /WDL 1\.0, workflow hello/);
    writeFileSync(join(f.dir, 'lib', 'tasks.wdl'), LIB.replace('String who', 'Strin who'));
    const broken = await f.run(['wdl', 'check', join(f.dir, 'hello.wdl')]);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /lib\/tasks\.wdl:\d+:\d+: /);
    writeFileSync(join(f.dir, 'lib', 'tasks.wdl'), LIB);
  });
});
