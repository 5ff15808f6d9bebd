/**
 * `npm run test:wdl`: the WDL 1.1 specification's example tests (../shared/wdl-1.1, openwdl/wdl-tests' layout) run on
 * gdflow: an embedded server on a temporary data root (host executor), each test's documents and inputs started as a
 * WDL run (the run service the `wdl/tasks/` routes use), its outputs compared with the expected ones (Files by
 * content), a test with `fail: true` passing when the run is refused or fails. Prints one line a test, counts by
 * category (the test's type and its first tag), and closes with `N passed, F failed`.
 * Usage: node dist/scripts/wdl/main.js [SUITE_DIR] [--only ID,...]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectPath, startTestServer } from '../../test/helpers/server.js';
import { download, upload, waitForTask } from '../../test/helpers/tasks.js';
import type { Scope } from '../../src/domain/tools/service.js';

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

const dir = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : '/work/shared/wdl-1.1';
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? new Set(process.argv[onlyAt + 1]!.split(',')) : undefined;
const tests = (JSON.parse(readFileSync(join(dir, 'test_config.json'), 'utf8')) as SpecTest[]).filter((t) => !only || only.has(t.id));
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
for (const name of dataFiles) await upload(account, `/wdl-tests/data/${name}`, readFileSync(join(dir, 'data', name)));

/** An input naming a file of data/ is that file in the data store. */
const mapInput = (value: unknown): unknown => {
  if (typeof value === 'string' && dataFiles.includes(value)) return `/wdl-tests/data/${value}`;
  if (Array.isArray(value)) return value.map(mapInput);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapInput(v)]));
  return value;
};

/** An actual output against the expected one: a File (a data-store path) by its content, or by its name. */
async function same(actual: unknown, expected: unknown): Promise<boolean> {
  if (typeof actual === 'string' && actual.startsWith(`${account.name}:/`)) {
    if (typeof expected !== 'string') return false;
    const content = await download(account, actual.slice(account.name.length + 1));
    if (dataFiles.includes(expected)) return content === readFileSync(join(dir, 'data', expected), 'utf8');
    return actual.endsWith(`/${expected.split('/').pop()}`) || content === expected;
  }
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && (await all(expected.map((e, i) => same(actual[i], e))));
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object') return false;
    const keys = Object.keys(expected);
    return (
      keys.length === Object.keys(actual).length &&
      (await all(keys.map((k) => same((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k]))))
    );
  }
  if (typeof expected === 'number' && typeof actual === 'number') return Math.abs(expected - actual) < 1e-6;
  return actual === expected;
}
const all = async (checks: Promise<boolean>[]): Promise<boolean> => (await Promise.all(checks)).every(Boolean);

async function runOne(test: SpecTest): Promise<{ ok: boolean; why: string }> {
  if (test.dependencies.includes('gpu')) return { ok: false, why: 'skipped: needs a GPU' };
  const target = test.type === 'task' ? test.target : undefined;
  let started;
  try {
    const inputs = mapInput(test.input) as Record<string, unknown>;
    started = await server.services.wdlRuns.start(scope, {
      sources: { main: files[test.path]!, mainName: test.path, files },
      inputs,
      outputDir: `/wdl-tests/out/${test.id}/`,
      ...(target ? { target } : {}),
    });
  } catch (error) {
    return test.fail ? { ok: true, why: 'refused as expected' } : { ok: false, why: `refused: ${(error as Error).message}` };
  }
  // The task as the wire gives it (waitForTask, a test helper, leaves it untyped).
  const task = (await waitForTask(account, started.task_id, { timeoutMs: 45_000 }).catch(async (e: Error) => {
    // Stopped, so that a run that cannot end does not hold the worker's slots from the tests after it.
    await account.api.json('PUT', projectPath(account.name, `tasks/${started.task_id}/`)).catch(() => undefined);
    return { status: 'timeout', reason: e.message };
  })) as { status: string; reason: string };
  if (test.fail) return task.status === 'succeeded' ? { ok: false, why: 'succeeded, but the test expects a failure' } : { ok: true, why: 'failed as expected' };
  if (task.status !== 'succeeded') return { ok: false, why: `${task.status}: ${task.reason}` };
  const { outputs } = await server.services.wdlRuns.outputs(scope, started.task_id);
  for (const [name, expected] of Object.entries(test.output)) {
    if (test.exclude_output.includes(name) || test.exclude_output.includes(name.split('.').pop()!)) continue;
    if (!(await same(outputs?.[name], expected)))
      return { ok: false, why: `output ${name} is ${JSON.stringify(outputs?.[name])}, expected ${JSON.stringify(expected)}` };
  }
  return { ok: true, why: 'outputs as expected' };
}

const byCategory = new Map<string, [number, number]>();
let passed = 0;
let failed = 0;
const queue = [...tests];
const workers = Array.from({ length: 3 }, async () => {
  for (let test = queue.shift(); test; test = queue.shift()) {
    const t0 = Date.now();
    const { ok, why } = await runOne(test);
    const ms = Date.now() - t0;
    const category = `${test.type}${test.fail ? ' (must fail)' : ''}`;
    const counts = byCategory.get(category) ?? [0, 0];
    counts[ok ? 0 : 1]++;
    byCategory.set(category, counts);
    if (ok) passed++;
    else failed++;
    console.log(`${ms}ms ${ok ? "PASS" : "FAIL"} ${test.id}: ${why.replace(/\s+/g, ' ').slice(0, 300)}`);
  }
});
await Promise.all(workers);
for (const [category, [p, f]] of [...byCategory].sort()) console.log(`${category}: ${p} passed, ${f} failed`);
console.log(`${passed} passed, ${failed} failed`);
await server.close();
process.exit(0);
