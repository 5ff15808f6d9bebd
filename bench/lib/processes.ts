import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transport } from '../../src/client/transport.js';

/** Helpers shared by the benchmarks: a gdflow server in its own process, and a signed client. */

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface ServerProcess {
  url: string;
  pid: number;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Wait for a line matching `pattern` on the child's stdout. */
function waitFor(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = pattern.exec(buffer);
      if (match) {
        child.stdout!.off('data', onData);
        resolve(match);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before it was ready: ${buffer}`)));
  });
}

export async function startGdflow(extraArgs: string[] = [], dataDir = mkdtempSync(join(tmpdir(), 'gdflow-bench-')), cli = CLI): Promise<ServerProcess> {
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p", profiles the server.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const match = await waitFor(child, /listening on (http:\/\/\S+)/, 'gdflow');
  return {
    url: match[1]!,
    pid: child.pid!,
    dataDir,
    child,
    stop: () => stopChild(child),
  };
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Create an account with the CLI (as an operator would) and return a client for it. */
export function createAccount(
  dataDir: string,
  url: string,
  name: string,
  extraArgs: string[] = [],
  cli = CLI,
): { transport: Transport; id: string; secret: string } {
  const result = spawnSync(process.execPath, [cli, 'admin', 'create-account', name, '--data-dir', dataDir, ...extraArgs, '--json'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`create-account failed: ${result.stderr}`);
  const key = JSON.parse(result.stdout) as { access_key_id: string; access_key_secret: string };
  return {
    id: key.access_key_id,
    secret: key.access_key_secret,
    transport: new Transport({ endpoint: url, credentials: { accessKeyId: key.access_key_id, accessKeySecret: key.access_key_secret } }),
  };
}

/** CPU seconds (user + system) a process has used so far: less noisy than rates on a shared machine. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Peak resident set size of a process so far (VmHWM), in MiB. */
export function peakRssMb(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The machine a benchmark ran on: CPU model, usable cores (as nproc counts them), Node version. */
export function machine(): string {
  return `${cpus()[0]?.model.trim() || 'unknown cpu'}, ${availableParallelism()} cores, Node ${process.version}`;
}
