import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceTest } from './suite.js';
import { judge, type RunOutcome, type Verdict } from './verdict.js';

/**
 * One test through the runner, as cwltest runs it: `RUNNER [runner args] --outdir=DIR --quiet TOOL [JOB]` in the
 * suite root, with a fresh output directory that is removed once the outputs have been compared.
 */

export interface RunnerConfig {
  /** The runner's command and its own leading words, e.g. ['cwltool'] or [node, 'main.js', 'cwl', 'run']. */
  command: string[];
  /** Passed after the command, before --outdir (cwltest's extra args). */
  args: string[];
  /** The suite root, where the runner runs and relative paths in its output resolve. */
  cwd: string;
  timeoutSeconds: number;
  /** Keep each test's output directory (for looking at a failure); by default it is removed. */
  keepOutdirs: boolean;
  /** Variables added to the runner's environment (--server: the server's endpoint and key). */
  env?: Readonly<Record<string, string>>;
}

export interface TestResult extends Verdict {
  command: string[];
  outcome: RunOutcome;
  outdir: string;
}

/** After the timeout the runner's process group gets SIGTERM, then SIGKILL this much later (cwltest waits 3 s). */
const KILL_GRACE_MS = 3000;
/** What is kept of a runner's stdout and stderr: enough for any output object of the suite, bounded for a runaway. */
const MAX_CAPTURE = 16 * 1024 * 1024;

export function testCommand(runner: RunnerConfig, test: ConformanceTest, outdir: string): string[] {
  return [...runner.command, ...runner.args, `--outdir=${outdir}`, '--quiet', test.tool, ...(test.job === undefined ? [] : [test.job])];
}

export async function runTest(runner: RunnerConfig, test: ConformanceTest, running: Set<number>): Promise<TestResult> {
  const outdir = mkdtempSync(join(tmpdir(), 'cwl-conformance-'));
  const command = testCommand(runner, test, outdir);
  try {
    const outcome = await runCommand(command, runner.cwd, runner.timeoutSeconds, running, runner.env);
    return { ...judge(test, outcome, runner.cwd), command, outcome, outdir };
  } finally {
    if (!runner.keepOutdirs) removeOutdir(outdir);
  }
}

/**
 * Best effort: a runner may leave what the driver cannot remove (a directory without write permission), which must
 * not stop the other tests.
 */
function removeOutdir(outdir: string): void {
  try {
    rmSync(outdir, { recursive: true, force: true });
  } catch (error) {
    process.stderr.write(`test:cwl: cannot remove ${outdir}: ${(error as Error).message}\n`);
  }
}

/**
 * Run in a process group of its own, so that a timeout (or the driver's own interruption, through `running`) ends
 * the runner's children too: a CWL runner's tools are its grandchildren and would otherwise outlive it.
 */
export function runCommand(
  command: string[],
  cwd: string,
  timeoutSeconds: number,
  running: Set<number>,
  env?: Readonly<Record<string, string>>,
  /** What the timeout sends first: SIGINT lets a `gdflow ... run` stop its task (its Ctrl-C) before the SIGKILL. */
  timeoutSignal: NodeJS.Signals = 'SIGTERM',
): Promise<RunOutcome> {
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const child = spawn(command[0]!, command.slice(1), { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const collect = (into: Buffer[]) => {
      let kept = 0;
      return (chunk: Buffer) => {
        if (kept >= MAX_CAPTURE) return;
        into.push(chunk);
        kept += chunk.length;
      };
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child.pid, timeoutSignal);
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    }, timeoutSeconds * 1000);
    if (child.pid !== undefined) running.add(child.pid);
    let done = false;
    const finish = (exitCode: number | null, signal: string | null, spawnError?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (child.pid !== undefined) running.delete(child.pid);
      const err = Buffer.concat(stderr).toString('utf8');
      resolvePromise({
        exitCode,
        signal,
        timedOut,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: spawnError ? `${err}cannot start ${command[0]}: ${spawnError.message}` : err,
        seconds: (performance.now() - started) / 1000,
      });
    };
    // A runner that cannot start (not installed) is an ordinary failure of every test, reported with the reason.
    child.once('error', (error) => finish(127, null, error));
    child.once('exit', (code, signal) => {
      // The runner is gone; what it left in its group (a tool it did not wait for) goes with it, which also closes
      // the pipes such a leftover held open. Its output is complete once they are closed, or a moment later at most.
      signalGroup(child.pid, 'SIGKILL');
      const closed = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, 5000);
      child.once('close', () => {
        clearTimeout(closed);
        finish(code, signal);
      });
    });
  });
}

export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group has already gone.
  }
}
