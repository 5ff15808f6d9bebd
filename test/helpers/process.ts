import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Transport } from '../../src/client/transport.js';
import { repoRoot } from './paths.js';
import type { TestAccount } from './server.js';

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

/**
 * `gdflow serve` as a child process on a data root of its own, with an account made by `gdflow admin create-account`
 * (which makes the store first) and a transport signing as it: what the tests of a server that is killed and
 * started again (recovery), or that runs with flags an in-process test server does not take (Slurm), share.
 * `account.api` follows the server across `restart`.
 */
export class ServedAccount {
  private constructor(
    readonly dataDir: string,
    private readonly serveArgs: string[],
    readonly account: TestAccount,
    public server: ServerChild,
  ) {}

  static async start(dataDir: string, name: string, serveArgs: string[] = []): Promise<ServedAccount> {
    const created = runCli(['admin', 'create-account', name, '--data-dir', dataDir, '--create', '--json']);
    if (created.status !== 0) throw new Error(`gdflow admin create-account ${name}: ${created.stderr}`);
    const key = JSON.parse(created.stdout) as { access_key_id: string; access_key_secret: string };
    const server = await startServerProcess(dataDir, serveArgs);
    const account: TestAccount = { name, accessKeyId: key.access_key_id, accessKeySecret: key.access_key_secret, api: signingTransport(server.url, key) };
    return new ServedAccount(dataDir, serveArgs, account, server);
  }

  /** Kill the server (SIGKILL: no clean shutdown, as in a crash) and wait until it is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.server.child.kill(signal);
    await waitForExit(this.server.child);
  }

  /** A new server on the same data root (after `kill`), the account's transport pointed at it. */
  async restart(): Promise<void> {
    this.server = await startServerProcess(this.dataDir, this.serveArgs);
    this.account.api = signingTransport(this.server.url, { access_key_id: this.account.accessKeyId, access_key_secret: this.account.accessKeySecret });
  }

  /** Stop the server if it still runs (SIGTERM). */
  async close(): Promise<void> {
    if (this.server.child.exitCode === null && this.server.child.signalCode === null) await this.kill('SIGTERM');
  }
}

function signingTransport(url: string, key: { access_key_id: string; access_key_secret: string }): Transport {
  return new Transport({ endpoint: url, credentials: { accessKeyId: key.access_key_id, accessKeySecret: key.access_key_secret }, retries: 0 });
}
