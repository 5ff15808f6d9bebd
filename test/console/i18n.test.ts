/**
 * The console's Chinese (issues 16 and 22): every text the console passes to t() has its translation in
 * console/src/zh.ts, as do the states and parameter kinds it translates as values, and every translation keeps the
 * text's {names}; every reason the engine can write (read from its source: engine-reasons.ts) has its key in
 * REASONS, and comes out in Chinese (console/src/reasons.ts, bundled for Node by esbuild as for the browser).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { repoRoot } from '../helpers/paths.js';
import { engineReasons } from './engine-reasons.js';

const source = join(repoRoot(), 'console', 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const unquote = (text: string): string => text.replace(/\\(.)/g, '$1');
const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

interface ConsoleTexts {
  ZH: Record<string, string>;
  REASONS: Record<string, string>;
  reasonInChinese(text: string): string;
}

/** zh.ts and reasons.ts as the browser runs them (they are browser code, outside the server's build). */
async function consoleTexts(): Promise<ConsoleTexts> {
  const bundled = await build({
    stdin: { contents: "export { ZH, REASONS } from './zh.ts'; export { reasonInChinese } from './reasons.ts';", resolveDir: source, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  return (await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0]!.text).toString('base64')}`)) as ConsoleTexts;
}

describe('console texts in Chinese', () => {
  let texts: ConsoleTexts;
  before(async () => {
    texts = await consoleTexts();
  });

  it('has a translation of every text passed to t()', () => {
    const used = new Set<string>();
    for (const file of files(source)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bt\('((?:[^'\\]|\\.)*)'/g)) used.add(unquote(m[1]!));
    }
    assert.ok(used.size > 150, `${used.size} texts`);
    const missing = [...used].filter((key) => !(key in texts.ZH));
    assert.deepEqual(missing, []);
  });

  it('translates the states, outcomes and kinds shown as values, and the section names', () => {
    const states = ['scheduled', 'queued', 'running', 'stopping', 'succeeded', 'failed', 'stopped', 'waiting', 'cancelled', 'checked', 'unchecked'];
    const outcomes = ['out_of_memory', 'killed', 'timed_out', 'lost'];
    for (const key of [...states, ...outcomes, 'integer', 'number', 'flag', 'string', 'Tools', 'Workflows', 'Tasks', 'Data']) {
      assert.ok(key in texts.ZH, key);
    }
  });

  it('keeps the {names} of each text in its translation', () => {
    for (const [key, value] of [...Object.entries(texts.ZH), ...Object.entries(texts.REASONS)]) assert.deepEqual(names(value), names(key), key);
  });

  it('has a key in REASONS for every reason the engine writes', () => {
    const found = engineReasons(repoRoot());
    assert.ok(found.size > 60, `${found.size} reasons found in the engine's source`);
    const keys = new Set(Object.keys(texts.REASONS).map((key) => key.replace(/\{\w+\}/g, '{}')));
    const missing = [...found].filter(([pattern]) => !keys.has(pattern)).map(([pattern, where]) => `${pattern} (${where.join(', ')})`);
    assert.deepEqual(missing, [], 'reasons without a Chinese key in console/src/zh.ts REASONS');
  });

  it('turns every reason, with its values, into Chinese', () => {
    // A value of each shape reasons.ts knows; any other placeholder gets v_<name>, which is kept as written.
    const sample: Record<string, string> = {
      ...{ n: '2', next: '3', max: '3', s: '30', mb: '512', used: '700', id: '4711', code: '137', signal: 'SIGKILL', time: '2026-11-25T10:00:00.000Z' },
      size: '1.5 GB',
      ...{ kind: 'out_of_memory', when: ' in 30 s', more: ', with 1024 MB', reason: 'exit code 1', why: 'attempt 3 of 3, no retries left' },
    };
    const fragments = new Set([' in {s} s', ', with {mb} MB', 'exit_code', 'out_of_memory', 'timeout', 'lost_worker', 'executor_error']);
    for (const [key, zh] of Object.entries(texts.REASONS)) {
      if (fragments.has(key)) continue;
      const english = key.replace(/\{(\w+)\}/g, (_, name: string) => sample[name] ?? `v_${name}`);
      const chinese = texts.reasonInChinese(english);
      assert.notEqual(chinese, english, `${english}: not translated`);
      // What is left in Latin letters is the values kept as written and a few names (SIGKILL, Slurm, MB, GB, CPU, gdflow).
      const left = chinese.replace(/v_\w+|SIG[A-Z]+|Slurm|gdflow|MB|GB|CPU|never/g, '');
      assert.doesNotMatch(left, /[a-z]{2,}/i, `${english} → ${chinese}`);
      assert.ok(zh.length > 0);
    }
  });

  it('translates reasons inside reasons, and leaves one it does not know as written', () => {
    const zh = (reason: string) => texts.reasonInChinese(reason);
    assert.equal(
      zh('node align (bwa_mem) failed: exit code 1 (attempt 3 of 3, no retries left)'),
      '节点 align（bwa_mem）失败：退出码 1（第 3/3 次尝试，不再重试）',
    );
    assert.equal(zh('killed by SIGKILL (exit code 137)'), '被 SIGKILL 终止（退出码 137）');
    assert.equal(
      zh('attempt 1 out_of_memory: out of memory: exceeded the 256 MB limit (killed by SIGKILL (exit code 137)); attempt 2 runs in 4 s, with 512 MB'),
      '第 1 次尝试内存不足：内存不足：超出 256 MB 的限制（被 SIGKILL 终止（退出码 137））；第 2 次尝试将在 4 秒后运行，内存 512 MB',
    );
    assert.equal(zh('attempt 1 exit_code: exit code 2; attempt 2 runs'), '第 1 次尝试退出码非零：退出码 2；第 2 次尝试将运行');
    assert.equal(zh('node x (t) failed: something new happened'), '节点 x（t）失败：something new happened');
    assert.equal(zh('waiting for 2 CPUs (1 free)'), '等待 2 个 CPU（空闲 1 个）', 'a wait, not taken for a start time');
    assert.equal(zh('waiting for 1 CPU (0 free) and 1.5 GB of memory (512 MB free)'), '等待 1 个 CPU（空闲 0 个），以及 1.5 GB 内存（空闲 512 MB）');
    assert.equal(
      zh('waiting for Slurm to start it: Priority (jobs of higher priority are ahead of it)'),
      '等待 Slurm 启动它：Priority（优先级更高的作业排在它前面）',
    );
    assert.equal(zh('a reason from a newer engine'), 'a reason from a newer engine');
  });
});
