/**
 * The SDK as a user gets it: packed (`npm pack` of packages/client), installed from the tarball into an empty project,
 * and the README's own snippet, read from the README, compiled against the installed types and run to the end against
 * a real server. And what `npm pack` puts in the whole gdflow package.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { DEMO_TOOLS } from '../../src/demo/documents.js';
import { demoSample } from '../../src/demo/sample.js';
import { skipWithout } from '../helpers/components.js';
import { repoRoot } from '../helpers/paths.js';
import { cliFixture, type CliFixture } from './support.js';

const run = promisify(execFile);
const root = repoRoot();
const project = mkdtempSync(join(tmpdir(), 'gdflow-sdk-user-'));
let fixture: CliFixture;

before(async () => {
  fixture = await cliFixture();
});
after(async () => {
  await fixture.close();
  rmSync(project, { recursive: true, force: true });
});

/** The README's SDK section. */
function sdkSection(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## The TypeScript SDK');
  assert.ok(start >= 0, 'the README has an SDK section');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
}

/** The first fenced block of a language in the SDK section. */
function block(language: string): string {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(sdkSection());
  assert.ok(match, `the README's SDK section has a ${language} block`);
  return match[1]!;
}

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

const packed = (stdout: string): PackResult => (JSON.parse(stdout) as PackResult[])[0]!;

/** The snippet runs the demo's workflow on the default executor (bwrap), which needs the tools on this machine. */
const missingTools = ['bwrap', 'fastp', 'bwa', 'samtools', 'wgsim'].filter((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0);

describe('the SDK package', { timeout: 300_000 }, () => {
  const skip = skipWithout(missingTools.length > 0 ? `the demo workflow's tools are not installed: ${missingTools.join(', ')}` : undefined);
  it('installs from the tarball the README makes and runs the README snippet to the end', { skip }, async (t) => {
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
    // The README's install lines, with the checkout's path; npm install offline-safe (its dependency is in the npm cache).
    const lines = block('sh')
      .split('\n')
      .map((line) =>
        line
          .replace(/\s+#.*$/, '')
          .replaceAll('/path/to/gdflow', root)
          .trim(),
      )
      .filter((line) => line !== '' && !line.includes('--install-links'));
    assert.deepEqual(
      lines.map((l) => l.split(' ').slice(0, 2).join(' ')),
      ['npm pack', 'npm install'],
    );
    for (const line of lines) {
      const started = Date.now();
      const command = line.startsWith('npm install') ? `${line} --prefer-offline --no-audit --no-fund` : `${line} --json`;
      const { stdout } = await run('sh', ['-c', command], { cwd: project, maxBuffer: 16 << 20 });
      t.diagnostic(`${command}: ${Date.now() - started} ms`);
      if (line.startsWith('npm pack')) {
        const tarball = packed(stdout);
        t.diagnostic(`${tarball.filename}: ${tarball.size} bytes, ${tarball.unpackedSize} unpacked, ${tarball.files.length} files`);
        const paths = tarball.files.map((f) => f.path);
        assert.ok(paths.includes('dist/client/index.js') && paths.includes('dist/client/index.d.ts'), 'the built SDK and its types');
        const sdk = /^(dist\/(client|signing|contract|data)\/[\w.-]+\.(js|d\.ts)|package\.json|README\.md)$/;
        assert.deepEqual(
          paths.filter((p) => !sdk.test(p)),
          [],
          'nothing but the SDK',
        );
      }
    }
    const installed = join(project, 'node_modules');
    assert.ok(existsSync(join(installed, '@gdflow', 'client', 'dist', 'client', 'index.js')));
    for (const server of ['better-sqlite3', 'fastify', 'pg', 'kysely']) {
      assert.ok(!existsSync(join(installed, server)), `${server} is the server's, not the SDK's`);
    }

    // What the snippet expects: the demo's tools and workflow, registered as the README says, and a sample here.
    for (const name of DEMO_TOOLS) {
      const file = join(root, 'examples', 'demo', `${name.replaceAll('_', '-')}-tool.yml`);
      const created = await fixture.run(['tool', 'create', '-f', file]);
      assert.equal(created.status, 0, created.stderr);
    }
    const workflow = await fixture.run(['workflow', 'create', '-f', join(root, 'examples', 'demo', 'align-workflow.yml')]);
    assert.equal(workflow.status, 0, workflow.stderr);
    const sample = demoSample(200);
    writeFileSync(join(project, 's1_R1.fq'), sample.r1);
    writeFileSync(join(project, 's1_R2.fq'), sample.r2);
    writeFileSync(join(project, 'ref.fa'), sample.reference);

    // The snippet, compiled as a strict TypeScript user would against the installed package's types, then run.
    writeFileSync(join(project, 'snippet.ts'), block('ts'));
    const compilerOptions = {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['snippet.ts'] }));
    let started = Date.now();
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch((error: { stdout?: string }) => {
      assert.fail(`the README snippet does not compile against the installed SDK:\n${error.stdout}`);
    });
    t.diagnostic(`tsc of the snippet: ${Date.now() - started} ms`);
    started = Date.now();
    const env = { ...process.env, ...fixture.env };
    const { stdout } = await run(process.execPath, ['snippet.js'], { cwd: project, env, timeout: 240_000 });
    t.diagnostic(`the snippet, to the task's end: ${Date.now() - started} ms`);
    assert.match(stdout, /succeeded: 11\/11 jobs/);
    assert.match(stdout, /^400 \+ 0 in total/m, 'the flagstat report of 200 simulated pairs');

    // The task ran as the snippet filled it: its inputs, its outputs' names, its parameter.
    const { task_list } = await fixture.client.listTasks();
    assert.equal(task_list.length, 1);
    const task = task_list[0]!;
    assert.equal(task.status, 'succeeded', task.reason);
    const { jobs } = await fixture.client.listJobs(task.task_id);
    const qc = jobs.find((j) => j.node_id === 'qc')!;
    assert.match((await fixture.client.getJobCommand(task.task_id, qc.job_id)).cmd, / -q 20 /);
    const stored = (await fixture.client.listData('/s1/')).items.map((i) => i.name).sort();
    const account = fixture.account.name;
    assert.deepEqual(
      stored,
      ['ref.fa', 's1.flagstat.txt', 's1.sorted.bam', 's1_R1.fq', 's1_R2.fq'].map((f) => `${account}:/s1/${f}`),
    );
  });

  it('packs the whole gdflow package with its built dist, console and examples, and nothing of tests or bench', async (t) => {
    // --ignore-scripts: the test runs after `npm run build`, which prepack would repeat.
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 16 << 20 });
    const tarball = packed(stdout);
    t.diagnostic(`${tarball.filename}: ${tarball.size} bytes, ${tarball.unpackedSize} unpacked, ${tarball.files.length} files`);
    const paths = tarball.files.map((f) => f.path);
    const needed = ['dist/src/cli/main.js', 'dist/src/index.d.ts', 'dist/src/client/index.js', 'dist/src/engine/executors/process/launcher/launcher-child.js'];
    needed.push('dist/console/index.html', 'examples/demo/align-workflow.yml', 'scripts/images/build-demo.sh');
    for (const path of needed) assert.ok(paths.includes(path), `${path} is in the package`);
    const stray = paths.filter((p) => /^(test|bench|src|packages|console|native|dist\/(test|bench|native))\//.test(p) || p.endsWith('.map'));
    assert.deepEqual(stray, [], 'no tests, benchmarks, sources, source maps or the machine-built launcher');
    const root_ = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const sdk = JSON.parse(readFileSync(join(root, 'packages', 'client', 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    assert.equal(sdk.version, root_.version, 'the SDK package has the version of the gdflow it comes with');
    // The types' json-schema-to-ts, lossless-json for integers beyond 2^53 in answers (contract/exact-json.ts), and undici
    // for a private CA (Node 20's fetch takes none): plain JavaScript, nothing to compile.
    assert.deepEqual(Object.keys(sdk.dependencies), ['json-schema-to-ts', 'lossless-json', 'undici']);
  });
});
