/**
 * The conformance driver end to end (scripts/cwl/main.ts): a small suite run through a stand-in CWL runner, a real
 * process that does what each test's document tells it (write files, print an output object, exit with a status,
 * hang), so that cwltest's contract is checked as a runner sees it: the command line and directory it runs in, exit
 * 33, should_fail, a timeout that ends the runner's children too, a checksum the runner declares but did not write,
 * and what the driver writes (lines, closing line, badges, JUnit XML, exit status).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runnerWords } from '../../scripts/cwl/options.js';
import { repoRoot } from '../helpers/paths.js';
import { liveProcesses } from '../helpers/processes.js';

const HELLO_SHA1 = 'sha1$f572d396fae9206628714fb2ce00f72e94f2258f';

/** The stand-in runner: RUNNER [args] --outdir=DIR --quiet TOOL [JOB], TOOL being a JSON plan of what to do. */
const RUNNER = `#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const args = process.argv.slice(2);
const outdir = args.find((a) => a.startsWith('--outdir=')).slice('--outdir='.length);
const tool = args[args.indexOf('--quiet') + 1];
const plan = JSON.parse(readFileSync(tool.split('#')[0], 'utf8'));
for (const [name, text] of Object.entries(plan.files ?? {})) writeFileSync(join(outdir, name), text);
if (plan.grandchild) {
  const child = spawn('sleep', ['120'], { stdio: 'ignore' });
  writeFileSync(plan.grandchild, String(child.pid));
}
if (plan.server) {
  // --server: the driver's server, reached with what it put in the environment.
  const health = await fetch(new URL('/healthz', process.env.GDFLOW_ENDPOINT)).then((r) => r.json());
  plan.stdout = { role: health.role, account: process.env.GDFLOW_ACCOUNT, keyed: Boolean(process.env.GDFLOW_ACCESS_KEY_ID && process.env.GDFLOW_ACCESS_KEY_SECRET) };
}
if (plan.sleep) await new Promise((resolve) => setTimeout(resolve, plan.sleep * 1000));
const text = plan.echo
  ? JSON.stringify({ argv: args.map((a) => a.replace(outdir, 'OUTDIR')), cwd: process.cwd() })
  : typeof plan.stdout === 'string' ? plan.stdout : JSON.stringify(plan.stdout ?? {}).replaceAll('OUTDIR', outdir);
process.stdout.write(text);
process.stderr.write('stand-in runner: done\\n');
process.exit(plan.exit ?? 0);
`;

let dir: string;
let suite: string;
let grandchildPidFile: string;

function driverCommand(): string[] {
  if (import.meta.url.endsWith('.ts')) return [process.execPath, '--import', 'tsx', join(repoRoot(), 'scripts', 'cwl', 'main.ts')];
  return [process.execPath, join(repoRoot(), 'dist', 'scripts', 'cwl', 'main.js')];
}

function runDriver(args: string[]) {
  const [command, ...prefix] = driverCommand();
  return spawnSync(command!, [...prefix, '--suite', suite, ...args], { encoding: 'utf8', cwd: dir, timeout: 60_000 });
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cwl-driver-'));
  suite = join(dir, 'suite');
  grandchildPidFile = join(dir, 'grandchild.pid');
  mkdirSync(join(suite, 'tests'), { recursive: true });
  writeFileSync(join(dir, 'runner.mjs'), RUNNER, { mode: 0o755 });
  const plans: Record<string, unknown> = {
    'echo.cwl': { echo: true },
    'file.cwl': {
      files: { 'out.txt': 'hello\n' },
      stdout: { out: { class: 'File', location: 'file://OUTDIR/out.txt', path: 'OUTDIR/out.txt', checksum: HELLO_SHA1, size: 6 } },
    },
    'lie.cwl': { files: { 'out.txt': '' }, stdout: { out: { class: 'File', location: 'file://OUTDIR/out.txt', checksum: HELLO_SHA1, size: 6 } } },
    'two.cwl': { stdout: { n: 2 } },
    'exit1.cwl': { exit: 1 },
    'exit0.cwl': { stdout: {} },
    'exit33.cwl': { exit: 33 },
    'hang.cwl': { grandchild: grandchildPidFile, sleep: 60 },
    'text.cwl': { stdout: 'hello' },
    'server.cwl': { server: true },
  };
  for (const [name, plan] of Object.entries(plans)) writeFileSync(join(suite, 'tests', name), JSON.stringify(plan));
  writeFileSync(join(suite, 'tests', 'job.json'), '{}');
  const expectedFile = { out: { class: 'File', location: 'out.txt', checksum: HELLO_SHA1, size: 6 } };
  const entries = [
    {
      id: 'echo',
      tool: 'tests/echo.cwl',
      job: 'tests/job.json',
      tags: ['required', 'command_line_tool'],
      output: { argv: ['--flag', '--outdir=OUTDIR', '--quiet', 'tests/echo.cwl', 'tests/job.json'], cwd: suite },
    },
    { id: 'file_ok', tool: 'tests/file.cwl#main', tags: ['initial_work_dir', 'command_line_tool'], output: expectedFile },
    { id: 'checksum_lie', tool: 'tests/lie.cwl', tags: ['command_line_tool'], output: expectedFile },
    { id: 'wrong_value', tool: 'tests/two.cwl', tags: ['command_line_tool'], output: { n: 1 } },
    { id: 'should_fail_ok', tool: 'tests/exit1.cwl', tags: ['required', 'command_line_tool'], should_fail: true },
    { id: 'should_fail_zero', tool: 'tests/exit0.cwl', tags: ['command_line_tool'], should_fail: true },
    { id: 'unsupported_optional', tool: 'tests/exit33.cwl', tags: ['docker', 'command_line_tool'], output: {} },
    { id: 'unsupported_required', tool: 'tests/exit33.cwl', tags: ['required', 'command_line_tool'], output: {} },
    { id: 'hangs', tool: 'tests/hang.cwl', tags: ['timelimit', 'command_line_tool'], output: {} },
    { id: 'not_json', tool: 'tests/text.cwl', tags: ['command_line_tool'], output: {} },
    { id: 'on_server', tool: 'tests/server.cwl', tags: ['server'], output: { role: 'all', account: 'cwl', keyed: true } },
  ];
  // JSON is YAML: the suite file is written as a list of JSON objects.
  writeFileSync(join(suite, 'conformance_tests.yaml'), entries.map((entry) => `- ${JSON.stringify(entry)}`).join('\n'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the conformance driver', () => {
  it('runs each test the way cwltest does and judges it by its contract', async () => {
    const badgedir = join(dir, 'badges');
    const junit = join(dir, 'junit.xml');
    // A relative runner path is the driver's, not the suite's: the driver makes it absolute.
    const run = runDriver([
      '--runner',
      './runner.mjs',
      '-j',
      '2',
      '--timeout',
      '5',
      '--badgedir',
      badgedir,
      '--junit-xml',
      junit,
      '-S',
      'on_server',
      '--',
      '--flag',
    ]);
    const lines = run.stdout.split('\n');
    const status = (id: string) =>
      lines
        .find((line) => line.endsWith(`  ${id}`))
        ?.trim()
        .split(/\s+/)[1];
    const ids = ['echo', 'file_ok', 'checksum_lie', 'wrong_value', 'should_fail_ok', 'should_fail_zero', 'unsupported_optional', 'unsupported_required'];
    const statuses = Object.fromEntries([...ids, 'hangs', 'not_json'].map((id) => [id, status(id)]));
    assert.deepEqual(
      statuses,
      {
        echo: 'PASS', // the runner's words, then --outdir=DIR --quiet TOOL JOB, in the suite's directory
        file_ok: 'PASS', // no job: none passed; the File matched by its tail, checksum and size from disk
        checksum_lie: 'FAIL', // declared sha1 of "hello\n" and 6 bytes, wrote an empty file
        wrong_value: 'FAIL',
        should_fail_ok: 'PASS',
        should_fail_zero: 'FAIL',
        unsupported_optional: 'UNSUPPORTED',
        unsupported_required: 'FAIL',
        hangs: 'TIMEOUT',
        not_json: 'FAIL',
      },
      run.stdout,
    );
    assert.match(run.stdout, /output\.out\.checksum: the runner declared sha1\$f572d396fae9\w+ but the file on disk has sha1\$da39a3ee/);
    assert.match(run.stdout, /output\.n: differs\n\s+expected: 1\n\s+actual: {3}2\n/);
    assert.match(run.stdout, /the runner exited 33 \(unsupported feature\) on a required test/);
    assert.match(run.stdout, /the runner exited 0 on a test that should fail/);
    assert.match(run.stdout, /stdout is not a JSON output object/);
    assert.match(run.stdout, /command: .*runner\.mjs --flag --outdir=\S+ --quiet tests\/two\.cwl\n/);
    assert.match(run.stdout, /stand-in runner: done/, "a failed run's stderr is shown");
    assert.equal(lines.filter(Boolean).at(-1), '3 passed, 6 failed, 1 unsupported', 'the closing line');
    assert.equal(run.status, 1);

    // The hanging runner's own child went with it: the runner's process group was stopped. (Dead, or a zombie left
    // for this machine's slow init to reap.)
    const grandchild = Number(readFileSync(grandchildPidFile, 'utf8'));
    assert.ok(grandchild > 0);
    assert.deepEqual(await liveProcesses((cmdline) => cmdline.startsWith('sleep 120')).then((pids) => pids.filter((pid) => pid === grandchild)), []);

    const badge = (tag: string) => JSON.parse(readFileSync(join(badgedir, `${tag}.json`), 'utf8'));
    assert.deepEqual(badge('all'), { subject: 'all', status: '30%', color: 'yellow' });
    assert.deepEqual(badge('required'), { subject: 'required', status: '66%', color: 'red' });
    assert.deepEqual(badge('initial_work_dir'), { subject: 'initial_work_dir', status: '100%', color: 'green' });
    assert.deepEqual(badge('docker'), { subject: 'docker', status: '0%', color: 'yellow' });
    assert.match(readFileSync(join(badgedir, 'required.md'), 'utf8'), /## List of failed tests\n- unsupported_required \(tool: tests\/exit33\.cwl\)/);

    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuite name="conformance_tests" tests="10" failures="6" skipped="1"/);
    assert.match(xml, /<testcase name="unsupported_optional" [^>]*>.*<skipped message="Unsupported"\/>/);
    assert.match(xml, /<testcase name="hangs" [^>]*>.*<failure message="Test timed out">/);
    assert.equal((xml.match(/<testcase /g) ?? []).length, 10);
  });

  it('exits 0 when nothing failed, unsupported tests allowed, and lists what a selection keeps', () => {
    const run = runDriver(['--runner', `${process.execPath} ${join(dir, 'runner.mjs')}`, '--id', 'file_ok,unsupported_optional']);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(run.stdout.trim().split('\n').at(-1), '1 passed, 0 failed, 1 unsupported');
    const list = runDriver(['--list', '--exclude-tags', 'required']);
    assert.equal(list.status, 0);
    assert.match(list.stdout, /^\[1\] file_ok: \n\[2\] checksum_lie: /);
  });

  it('--server: runs the tests on one gdflow server it starts, handing the runner its endpoint and key', () => {
    const run = runDriver(['--server', '--runner', `${process.execPath} ${join(dir, 'runner.mjs')}`, '--id', 'on_server']);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /\(on the server http:\/\/127\.0\.0\.1:\d+\)/);
    assert.equal(run.stdout.trim().split('\n').at(-1), '1 passed, 0 failed, 0 unsupported');
  });

  it('fails every test, saying why, when the runner cannot start; refuses a bad option with status 2', () => {
    const run = runDriver(['--runner', 'no-such-cwl-runner', '-s', 'echo']);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /cannot start no-such-cwl-runner: spawn no-such-cwl-runner ENOENT/);
    assert.equal(run.stdout.trim().split('\n').at(-1), '0 passed, 1 failed, 0 unsupported');
    const bad = runDriver(['-n', '1-99']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /-n: 1-99 is not within the tests 1-11/);
    assert.equal(runDriver(['--jobs', '0']).status, 2);
  });
});

describe('--runner', () => {
  it('makes the program and a later word naming a file here absolute (the runner starts in the suite), nothing else', () => {
    const cwd = process.cwd();
    try {
      process.chdir(repoRoot());
      const words = runnerWords('node scripts/setup.sh --flag=./x ./no-such-file cwl');
      assert.deepEqual(words, ['node', join(repoRoot(), 'scripts', 'setup.sh'), '--flag=./x', './no-such-file', 'cwl']);
      assert.deepEqual(runnerWords('./my-runner --x'), [join(repoRoot(), 'my-runner'), '--x']);
    } finally {
      process.chdir(cwd);
    }
  });
});
