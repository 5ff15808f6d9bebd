/**
 * The Slurm client commands the executor drives (sbatch, squeue, scancel, sinfo), each started with an argument
 * array (never a shell line). They find the cluster as any Slurm client does: SLURM_CONF or /etc/slurm/slurm.conf
 * on the worker's host. Every call is one RPC to the controller (what `sdiag` counts), so the executor makes few:
 * one sbatch per job, one squeue per poll for all of its jobs (poller.ts), one scancel per stop.
 */
import { execFile } from 'node:child_process';

export interface SlurmCommands {
  sbatch: string;
  squeue: string;
  scancel: string;
  sinfo: string;
}

export const DEFAULT_COMMANDS: SlurmCommands = { sbatch: 'sbatch', squeue: 'squeue', scancel: 'scancel', sinfo: 'sinfo' };

export class SlurmCommandError extends Error {
  constructor(
    readonly command: string,
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`${command} failed (${code ?? 'killed'}): ${stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`);
  }
}

/** Runs one client command; resolves with its stdout, rejects with SlurmCommandError when it fails. */
export function slurmCall(file: string, args: string[], timeoutMs = 30_000, env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, ...(env ? { env } : {}) }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException & { code?: number | string }).code ?? null;
        reject(new SlurmCommandError(file, code, stderr || error.message));
        return;
      }
      resolve(stdout);
    });
  });
}

/** A Slurm job's state as squeue reports it. */
export interface QueueRow {
  id: string;
  /** PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ... */
  state: string;
  name: string;
  /** Seconds since the epoch; undefined before the job started. */
  startedAt: number | undefined;
  endedAt: number | undefined;
  /** Why a PENDING job waits (squeue's %r: Resources, Priority, ...); `None` otherwise. */
  reason: string;
}

/** The squeue format the poller asks for, and its parser: `id|state|start|end|reason|name` (the name last: it may hold `|`). */
export const QUEUE_FORMAT = '%i|%T|%S|%e|%r|%j';

export function parseQueue(text: string): QueueRow[] {
  const rows: QueueRow[] = [];
  for (const line of text.split('\n')) {
    const parts = line.split('|');
    if (parts.length < 6 || !/^\d+$/.test(parts[0]!)) continue;
    const [id, state, start, end, reason] = parts as [string, string, string, string, string];
    const times = { startedAt: parseSlurmTime(start), endedAt: parseSlurmTime(end) };
    rows.push({ id, state: state.replace(/\+$/, ''), ...times, reason: reason.trim(), name: parts.slice(5).join('|') });
  }
  return rows;
}

/** Slurm writes times as local `YYYY-MM-DDTHH:MM:SS`, and N/A, Unknown or None when there is none. */
function parseSlurmTime(text: string): number | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(text)) return undefined;
  const ms = new Date(text).getTime(); // no zone: local time, as Slurm means it
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/** States after which the job will not run again. COMPLETING is not one of them: its processes may still run. */
export const ENDED_STATES = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'OUT_OF_MEMORY', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE']);

/**
 * The environment sbatch runs with, and so the environment a job's batch script gets (`--export=ALL`): PATH, LANG
 * and the Slurm client's own settings (SLURM_*, SBATCH_*), nothing else of the worker's (database URLs, tokens).
 * Why not `--export=NONE` or `NIL`: on this kind of machine they made every job start about 0.3 s slower
 * (20 trivial jobs on 2 CPUs: 13-16 s against 9.5 s), and the script clears the command's environment anyway.
 */
export function submitEnvironment(from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: from.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' };
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && /^(SLURM|SBATCH)_/.test(name)) env[name] = value;
  }
  return env;
}
