import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { ROOT } from './processes.js';

/** A command a benchmark ran: its wall time, exit status and output. */
export interface Ran {
  seconds: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to its end (stdin from /dev/null), timing it. */
export function run(command: string, args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', reject);
    child.once('close', (status) =>
      resolve({ seconds: (performance.now() - started) / 1000, status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
}

/** The load averages (1, 5, 15 minutes), as uptime prints them: how busy the shared machine was. */
export const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
