/**
 * `npm run test:wdl`: the WDL 1.1 specification's example tests (../shared/wdl-1.1, openwdl/wdl-tests' layout) run
 * through the real command, as a user runs a document: one gdflow server for the run (scripts/cwl/server.ts, the
 * CWL driver's --server: a temporary data root, host executor), and each test as `gdflow wdl run [--task T] -i
 * INPUTS.json --outdir DIR --quiet DOC.wdl`, a child process configured for that server by its environment
 * (GDFLOW_ENDPOINT and the key), the document the suite's own file (its imports read beside it), the inputs the
 * test's written to a temporary file (data/ files as local paths, uploaded by the CLI). Its stdout's outputs are
 * compared with the expected ones (compare.ts: Files by the content of the local file); a test with `fail: true`
 * passes when the command exits non-zero. At --timeout the command gets SIGINT (its Ctrl-C stops its task), then
 * SIGKILL. Prints one line a test, counts by category, and closes with `N passed, F failed` and `K known failures`;
 * exits 1 on a failure that known-failures.ts does not list, or on a listed test that passed (verdict.ts). `--help`
 * for the options.
 */
import { CommanderError } from 'commander';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { GDFLOW_CLI } from '../cwl/options.js';
import { runCommand, signalGroup } from '../cwl/run-test.js';
import { startDriverServer } from '../cwl/server.js';
import { mapInput, same, type OutputFiles } from './compare.js';
import { knownFailuresMarkdown, testKey } from './known-failures.js';
import { parseOptions, type DriverOptions } from './options.js';
import { closingLines, judge, verdictOk, type TestResult } from './verdict.js';

interface SpecTest {
  id: string;
  path: string;
  type: string;
  target: string;
  fail: boolean;
  exclude_output: string[];
  dependencies: string[];
  tags: string[];
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  return_code?: number | string;
}

let options: DriverOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  process.exit(error instanceof CommanderError && error.exitCode === 0 ? 0 : 2);
}
if (options.markdown) {
  process.stdout.write(knownFailuresMarkdown());
  process.exit(0);
}

const dir = options.suite;
const tests = (JSON.parse(readFileSync(join(dir, 'test_config.json'), 'utf8')) as SpecTest[]).filter((t) => !options.only || options.only.has(t.id));
const dataDir = resolve(dir, 'data');
const dataFiles = readdirSync(dataDir);
const dataFile = (name: string): string | undefined => (dataFiles.includes(name) ? readFileSync(join(dataDir, name), 'utf8') : undefined);

const server = await startDriverServer({ executor: 'host' });
const work = mkdtempSync(join(tmpdir(), 'wdl-tests-'));
/** The process groups of the runs going on, which an interrupted driver ends with itself. */
const running = new Set<number>();
process.once('SIGINT', () => {
  for (const pid of running) signalGroup(pid, 'SIGINT');
  process.exitCode = 130;
});

async function runOne(test: SpecTest): Promise<{ ok: boolean; why: string }> {
  if (test.dependencies.includes('gpu')) return { ok: false, why: 'skipped: needs a GPU' };
  const base = mkdtempSync(join(work, `${test.id}${test.fail ? '-fail' : ''}-`));
  try {
    const inputs = join(base, 'inputs.json');
    writeFileSync(inputs, JSON.stringify(mapInput(test.input, dataFiles, dataDir)));
    const outdir = join(base, 'out');
    const task = test.type === 'task' ? ['--task', test.target] : [];
    const command = [...GDFLOW_CLI, 'wdl', 'run', ...task, '-i', inputs, '--outdir', outdir, '--quiet', resolve(dir, test.path)];
    // On the timeout SIGINT, the CLI's Ctrl-C: it stops the run's task, so that a run that cannot end does not hold
    // the worker's slots from the tests after it.
    const run = await runCommand(command, base, options.timeoutSeconds, running, server.env, 'SIGINT');
    const said = run.stderr.trim();
    if (test.fail)
      return run.exitCode === 0 ? { ok: false, why: 'succeeded, but the test expects a failure' } : { ok: true, why: `failed as expected: ${said}` };
    if (run.timedOut) return { ok: false, why: `timeout: no answer within ${options.timeoutSeconds} s, its task stopped; ${said}` };
    if (run.exitCode !== 0) return { ok: false, why: `exit ${run.exitCode ?? run.signal}: ${said}` };
    const { outputs } = JSON.parse(run.stdout) as { outputs?: Record<string, unknown> };
    const files: OutputFiles = { outdir: outdir + sep, dataFile };
    for (const [name, expected] of Object.entries(test.output)) {
      if (test.exclude_output.includes(name) || test.exclude_output.includes(name.split('.').pop()!)) continue;
      if (!(await same(outputs?.[name], expected, files)))
        return { ok: false, why: `output ${name} is ${JSON.stringify(outputs?.[name])}, expected ${JSON.stringify(expected)}` };
    }
    return { ok: true, why: 'outputs as expected' };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const byCategory = new Map<string, [number, number]>();
const results: TestResult[] = [];
const queue = [...tests];
const started = Date.now();
const workers = Array.from({ length: options.jobs }, async () => {
  for (let test = queue.shift(); test; test = queue.shift()) {
    const t0 = Date.now();
    const { ok, why } = await runOne(test);
    const category = `${test.type}${test.fail ? ' (must fail)' : ''}`;
    const counts = byCategory.get(category) ?? [0, 0];
    counts[ok ? 0 : 1]++;
    byCategory.set(category, counts);
    results.push({ key: testKey(test), ok, why });
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(`${ok ? 'PASS' : 'FAIL'} ${testKey(test)} (${seconds} s): ${why.replace(/\s+/g, ' ').slice(0, 300)}`);
  }
});
await Promise.all(workers);
await server.close();
rmSync(work, { recursive: true, force: true });
for (const [category, [p, f]] of [...byCategory].sort()) console.log(`${category}: ${p} passed, ${f} failed`);
console.log(`${tests.length} tests in ${((Date.now() - started) / 1000).toFixed(0)} s`);
const verdict = judge(results);
for (const line of closingLines(verdict)) console.log(line);
process.exit(verdictOk(verdict) ? 0 : 1);
