/**
 * The launcher processes (src/engine/executors/process/launcher/launcher.ts: the native one and the Node one) with real
 * processes: start failures are reported as job failures, and no job outlives the process that started it,
 * even one killed with SIGKILL.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createExecutor } from '../../src/engine/executors/index.js';
import { defaultLauncherKind, Launcher, LaunchError, nativeLauncherPath, type LauncherKind } from '../../src/engine/executors/process/launcher/launcher.js';
import { liveProcesses } from '../helpers/processes.js';

let base: string;
before(async () => {
  base = await mkdtemp(join(tmpdir(), 'gdflow-launcher-test-'));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Live `sleep` processes with `marker` in their command line (not the stand-in server, whose script names it too). */
const sleepsWith = (marker: string): Promise<number[]> => liveProcesses((cmdline) => cmdline.startsWith('sleep ') && cmdline.includes(marker));

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const LAUNCHERS: LauncherKind[] = defaultLauncherKind() === 'native' ? ['native', 'node'] : ['node'];

describe('launcher', () => {
  it('npm run build has built the native launcher wherever a C compiler is installed', () => {
    const compiler = spawnSync('sh', ['-c', `command -v "\${CC:-cc}"`]).status === 0;
    if (compiler) assert.equal(defaultLauncherKind(), 'native', `${nativeLauncherPath()} is missing although a C compiler is installed`);
    else assert.equal(defaultLauncherKind(), 'node');
  });

  it('an executor asked for the native launcher where it is not built fails its check, naming the way out', async () => {
    const executor = createExecutor('host', { launcher: 'native' });
    if (defaultLauncherKind() === 'native') await executor.check();
    else await assert.rejects(executor.check(), /native launcher is not built .*--launcher node/);
    await createExecutor('host', { launcher: 'node' }).check();
  });

  for (const kind of LAUNCHERS) {
    it(`${kind}: 100 jobs launched at once, each with a 100 KB environment, all start and report their own exit`, async () => {
      const launcher = new Launcher(kind);
      try {
        const dir = join(base, `many-${kind}`);
        const big = 'x'.repeat(100_000);
        const log = (i: number, which: string) => join(dir, `${i}.${which}`);
        const runs = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            launcher.launch({
              file: '/bin/sh',
              args: ['-c', `echo ${i} \${#BIG}; exit $((${i} % 7))`],
              cwd: base,
              env: { BIG: big },
              stdoutLog: log(i, 'out'),
              stderrLog: log(i, 'err'),
            }),
          ),
        );
        const exits = await Promise.all(runs.map((run) => run.exited));
        for (let i = 0; i < 100; i++) {
          assert.deepEqual(exits[i], { code: i % 7, signal: null });
          assert.equal(await readFile(log(i, 'out'), 'utf8'), `${i} 100000\n`);
        }
      } finally {
        await launcher.close();
      }
    });

    it(`${kind}: a program that cannot be started is a LaunchError of stage "spawn"; a log that cannot be opened, of stage "log"`, async () => {
      await startFailures(kind);
    });

    it(`${kind}: arguments, environment and working directory reach the program exactly; a signal's death is reported`, async () => {
      const launcher = new Launcher(kind);
      try {
        const dir = join(base, `exact-${kind}`);
        const logs = { stdoutLog: join(dir, 'logs', 'out.log'), stderrLog: join(dir, 'logs', 'err.log') };
        const args = ['-c', 'printf "%s|" "$@"; printf "%s|%s|" "$GD_X" "$(pwd)"; env | sort | tr "\\n" ","', 'sh', 'a b', '', "it's", '$HOME', 'ü'];
        const run = await launcher.launch({ file: '/bin/sh', args, cwd: '/tmp', env: { GD_X: 'v=1 2', PATH: '/usr/bin:/bin' }, ...logs });
        assert.deepEqual(await run.exited, { code: 0, signal: null });
        const out = await readFile(logs.stdoutLog, 'utf8');
        assert.equal(out, "a b||it's|$HOME|ü|v=1 2|/tmp|GD_X=v=1 2,PATH=/usr/bin:/bin,PWD=/tmp,");
        const killed = await launcher.launch({ file: 'sh', args: ['-c', 'kill -TERM $$'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, ...logs });
        assert.deepEqual(await killed.exited, { code: null, signal: 'SIGTERM' });
      } finally {
        await launcher.close();
      }
    });
  }
});

async function startFailures(kind: LauncherKind): Promise<void> {
  const launcher = new Launcher(kind);
  try {
    const logs = { stdoutLog: join(base, 'a', 'out.log'), stderrLog: join(base, 'a', 'err.log') };
    await assert.rejects(
      launcher.launch({ file: join(base, 'no-such-program'), args: [], cwd: base, env: {}, ...logs }),
      (error: unknown) => error instanceof LaunchError && error.stage === 'spawn' && /ENOENT/.test(error.message),
    );
    await assert.rejects(
      launcher.launch({ file: '/bin/true', args: [], cwd: base, env: {}, stdoutLog: '/proc/version/x/out.log', stderrLog: logs.stderrLog }),
      (error: unknown) => error instanceof LaunchError && error.stage === 'log',
    );
    const ok = await launcher.launch({ file: '/bin/sh', args: ['-c', 'echo hi; exit 4'], cwd: base, env: {}, ...logs });
    assert.deepEqual(await ok.exited, { code: 4, signal: null });
    assert.equal(await readFile(logs.stdoutLog, 'utf8'), 'hi\n');
  } finally {
    await launcher.close();
  }
}

describe('launcher in the executors', () => {
  it('a sandbox that cannot be started fails its job with "could not start", and is never reported started', async () => {
    const executor = createExecutor('bwrap', { bwrapPath: join(base, 'no-bwrap-here') });
    let started = 0;
    const r = await executor.run(
      {
        jobId: 'nostart',
        workDir: join(base, 'nostart'),
        command: 'true',
        mounts: [],
        stdoutLog: join(base, 'nostart-logs', 'out'),
        stderrLog: join(base, 'nostart-logs', 'err'),
        cpu: 1,
        memMb: 0,
        network: false,
        timeoutSeconds: 0,
      },
      new AbortController().signal,
      { onStarted: () => void started++ },
    );
    await executor.close?.();
    assert.equal(r.outcome, 'failed');
    assert.match(r.reason, /^could not start: .*ENOENT/);
    assert.equal(started, 0);
  });

  for (const kind of ['host', 'bwrap'] as const)
    for (const launcherKind of LAUNCHERS) {
      it(`${kind}, ${launcherKind} launcher: a job does not outlive a server killed with SIGKILL`, async () => {
        const marker = `7${kind === 'host' ? 1 : 2}${launcherKind === 'native' ? 1 : 2}${process.pid}`;
        // A stand-in for the server: a Node process that runs one job through the executor.
        const script = `
        const { createExecutor } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/engine/executors/index.js', import.meta.url)))});
        const executor = createExecutor(${JSON.stringify(kind)}, { launcher: ${JSON.stringify(launcherKind)} });
        await executor.run({ jobId: 'orphan', workDir: ${JSON.stringify(join(base, `orphan-${kind}`))}, command: 'sleep ${marker}', mounts: [],
          stdoutLog: ${JSON.stringify(join(base, `orphan-${kind}.out`))}, stderrLog: ${JSON.stringify(join(base, `orphan-${kind}.err`))},
          cpu: 1, memMb: 0, network: false, timeoutSeconds: 0 }, new AbortController().signal);`;
        const server = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
        await until(async () => (await sleepsWith(marker)).length === 1, 'the job to start');
        server.kill('SIGKILL');
        await until(async () => (await sleepsWith(marker)).length === 0, 'the job to end with its server');
      });
    }
});
