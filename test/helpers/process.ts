import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/** The CLI as a command line: the compiled one under dist/, or the sources through tsx. */
export function cliCommand(): string[] {
  const root = repoRoot();
  if (import.meta.url.endsWith('.ts')) return [process.execPath, '--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];
  return [process.execPath, join(root, 'dist', 'src', 'cli', 'main.js')];
}

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const [command, ...prefix] = cliCommand();
  return spawnSync(command!, [...prefix, ...args], { encoding: 'utf8', env: { ...process.env, ...options.env }, input: options.input, cwd: repoRoot() });
}

export interface ServerChild {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Start `gdflow serve` as a child process and wait until it listens. */
export function startServerProcess(dataDir: string, extra: string[] = []): Promise<ServerChild> {
  const [command, ...prefix] = cliCommand();
  const child = spawn(command!, [...prefix, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...extra], {
    cwd: repoRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve({ url: match[1]!, child, output: () => output });
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`gdflow serve exited with ${code}: ${output}`));
      // A server that dies on its own in the middle of a test says why (a test's SIGKILL does not print).
      if (code !== null && code !== 0) process.stderr.write(`# gdflow serve (${dataDir}) exited with ${code}: ${output.slice(-4000)}\n`);
      void signal;
    });
  });
}

export function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}
