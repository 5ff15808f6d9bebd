/**
 * `npm run test:wdl`: the WDL 1.1 specification's example tests (../shared/wdl-1.1, openwdl/wdl-tests' layout) run on
 * gdflow: an embedded server on a temporary data root (host executor), each test's documents and inputs started as a
 * WDL run (the run service the `wdl/tasks/` routes use), its outputs compared with the expected ones (compare.ts), a
 * test with `fail: true` passing when the run is refused or fails. Prints one line a test, counts by category, and
 * closes with `N passed, F failed` and `K known failures`; exits 1 on a failure that known-failures.ts does not list,
 * or on a listed test that passed (verdict.ts). `--help` for the options.
 */
import { CommanderError } from 'commander';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectPath, startTestServer } from '../../test/helpers/server.js';
import { download, upload, waitForTask } from '../../test/helpers/tasks.js';
import type { Scope } from '../../src/domain/tools/service.js';
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
const files: Record<string, string> = {};
for (const name of readdirSync(dir)) if (name.endsWith('.wdl')) files[name] = readFileSync(join(dir, name), 'utf8');
const dataFiles = readdirSync(join(dir, 'data'));

const server = await startTestServer({ cpus: 2, executor: 'host' });
const account = await server.account('wdltests');
const record = (await server.services.store.getAccount(account.name))!;
const scope: Scope = {
  caller: { accountId: record.id, accountName: account.name, userName: 'admin', accessKeyId: account.accessKeyId },
  account: account.name,
  project: 'default',
  baseUrl: server.url,
};
const DATA_ROOT = '/wdl-tests/data';
for (const name of dataFiles) await upload(account, `${DATA_ROOT}/${name}`, readFileSync(join(dir, 'data', name)));
const outputFiles: OutputFiles = {
  account: account.name,
  download: (path) => download(account, path),
  dataFile: (name) => (dataFiles.includes(name) ? readFileSync(join(dir, 'data', name), 'utf8') : undefined),
};

async function runOne(test: SpecTest): Promise<{ ok: boolean; why: string }> {
  if (test.dependencies.includes('gpu')) return { ok: false, why: 'skipped: needs a GPU' };
  const target = test.type === 'task' ? test.target : undefined;
  let started;
  try {
    started = await server.services.wdlRuns.start(scope, {
      sources: { main: files[test.path]!, mainName: test.path, files },
      inputs: mapInput(test.input, dataFiles, DATA_ROOT) as Record<string, unknown>,
      outputDir: `/wdl-tests/out/${test.id}${test.fail ? '-fail' : ''}/`,
      ...(target ? { target } : {}),
    });
  } catch (error) {
    return test.fail ? { ok: true, why: 'refused as expected' } : { ok: false, why: `refused: ${(error as Error).message}` };
  }
  // The task as the wire gives it (waitForTask, a test helper, leaves it untyped).
  const task = (await waitForTask(account, started.task_id, { timeoutMs: options.timeoutSeconds * 1000 }).catch(async (e: Error) => {
    // What each unfinished job waits for, then stopped, so that a run that cannot end does not hold the worker's
    // slots from the tests after it.
    const listed = await account.api.json<{ jobs: { name: string; status: string; reason: string }[] }>(
      'GET',
      projectPath(account.name, `tasks/${started.task_id}/jobs/`),
    );
    const open = listed.jobs.filter((j) => !['succeeded', 'failed', 'skipped', 'stopped'].includes(j.status));
    await account.api.json('PUT', projectPath(account.name, `tasks/${started.task_id}/`)).catch(() => undefined);
    return { status: 'timeout', reason: `${e.message}; jobs not ended: ${open.map((j) => `${j.name} ${j.status} (${j.reason})`).join(', ')}` };
  })) as { status: string; reason: string };
  if (test.fail) return task.status === 'succeeded' ? { ok: false, why: 'succeeded, but the test expects a failure' } : { ok: true, why: 'failed as expected' };
  if (task.status !== 'succeeded') return { ok: false, why: `${task.status}: ${task.reason}` };
  const { outputs } = await server.services.wdlRuns.outputs(scope, started.task_id);
  for (const [name, expected] of Object.entries(test.output)) {
    if (test.exclude_output.includes(name) || test.exclude_output.includes(name.split('.').pop()!)) continue;
    if (!(await same(outputs?.[name], expected, outputFiles)))
      return { ok: false, why: `output ${name} is ${JSON.stringify(outputs?.[name])}, expected ${JSON.stringify(expected)}` };
  }
  return { ok: true, why: 'outputs as expected' };
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
for (const [category, [p, f]] of [...byCategory].sort()) console.log(`${category}: ${p} passed, ${f} failed`);
console.log(`${tests.length} tests in ${((Date.now() - started) / 1000).toFixed(0)} s`);
const verdict = judge(results);
for (const line of closingLines(verdict)) console.log(line);
process.exit(verdictOk(verdict) ? 0 : 1);
