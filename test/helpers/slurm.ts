/**
 * A throwaway single-node Slurm for tests (scripts/slurm/start.sh: munge, slurmctld and slurmd on localhost, on
 * free ports, in a temporary directory), started once per test process and stopped at exit. It sets SLURM_CONF
 * in this process's environment, so that the Slurm client commands the executor runs find it; child servers get
 * it through `slurmEnv()`.
 *
 * Tests that need it pass `skip: skipWithout(slurmUnavailable())` (helpers/components.ts).
 *
 * `{ accounting: true }` (bench:slurm) starts it with SLURM_ACCOUNTING=1: slurmdbd and a throwaway MariaDB (installed
 * by start.sh if missing), so that sacct works; the tests use the default, without.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MissingComponent } from './components.js';
import { repoRoot } from './paths.js';

export interface SlurmCluster {
  /** The cluster's slurm.conf: what SLURM_CONF must name for a client command. */
  readonly conf: string;
  readonly dir: string;
  /** Slurm job ids in the controller's queue, in any state but ended ones (squeue's default). */
  queued(): string[];
  /**
   * squeue's state of one job (PENDING, RUNNING, COMPLETED, CANCELLED...), ended jobs included while the controller
   * remembers them (MinJobAge is an hour here); undefined when it does not list the job.
   */
  state(id: string): string | undefined;
  /** RPCs the controller has received since the last reset (sdiag's "Remote Procedure Call statistics by message type"). */
  rpcCount(): number;
  /** The same RPCs by message type (REQUEST_SUBMIT_BATCH_JOB, REQUEST_JOB_INFO, ...), for a breakdown. */
  rpcCounts(): Record<string, number>;
  resetRpcCount(): void;
  /** RPCs slurmdbd has received since the last reset (`sacctmgr show stats`), slurmctld's own included; accounting only. */
  dbdRpcCount?(): number;
  resetDbdRpcCount?(): void;
  stop(): void;
}

export interface SlurmOptions {
  /** slurmdbd + MariaDB (scripts/slurm/start.sh with SLURM_ACCOUNTING=1), for sacct. */
  accounting?: boolean;
}

/** Why a Slurm cluster cannot be started here, or undefined when it can. */
export function slurmUnavailable(): string | undefined {
  for (const program of ['/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/sbin/munged']) {
    if (!existsSync(program)) return `Slurm is not installed (no ${program}; apt-get install slurm-wlm)`;
  }
  if (process.getuid?.() !== 0) return 'the test Slurm cluster runs its daemons as root, and this is not root';
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let started: Promise<SlurmCluster> | undefined;
let startedWithAccounting = false;

/** The cluster of this test process (started on the first call, with the first call's options). */
export function startSlurm(options: SlurmOptions = {}): Promise<SlurmCluster> {
  const accounting = options.accounting ?? false;
  if (started && accounting !== startedWithAccounting) throw new Error('the Slurm cluster of this process was started with other options');
  startedWithAccounting = accounting;
  started ??= launch(accounting);
  return started;
}

/** The counts of the "by message type" part of an sdiag or `sacctmgr show stats` report, by type. */
function rpcsByType(text: string): Record<string, number> {
  // "Remote Procedure Call statistics by message type" lists each type with its count; the users' part repeats them.
  const part = text.split(/Remote Procedure Call statistics by user/)[0]!.split(/Remote Procedure Call statistics by message type/)[1] ?? '';
  const counts: Record<string, number> = {};
  for (const m of part.matchAll(/^\s*(\S+)\s+\(\s*\d+\)\s+count:(\d+)/gm)) counts[m[1]!] = (counts[m[1]!] ?? 0) + Number(m[2]);
  return counts;
}

/** All the counts of that part (sacctmgr's report names its types in another layout, so they are summed as they come). */
function rpcTotal(text: string): number {
  const part = text.split(/Remote Procedure Call statistics by user/)[0]!.split(/Remote Procedure Call statistics by message type/)[1] ?? '';
  let total = 0;
  for (const m of part.matchAll(/count:(\d+)/g)) total += Number(m[1]);
  return total;
}

async function launch(accounting: boolean): Promise<SlurmCluster> {
  const missing = slurmUnavailable();
  if (missing) throw new MissingComponent(missing);
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-slurm-'));
  const root = repoRoot();
  const env: NodeJS.ProcessEnv = { ...process.env, SLURMCTLD_PORT: String(await freePort()), SLURMD_PORT: String(await freePort()) };
  delete env.SLURM_CONF;
  delete env.SLURM_ACCOUNTING;
  if (accounting) Object.assign(env, { SLURM_ACCOUNTING: '1', SLURMDBD_PORT: String(await freePort()), DB_PORT: String(await freePort()) });
  // With accounting, start.sh may first apt-get install slurmdbd and mariadb-server (about 30 s).
  const out = execFileSync(join(root, 'scripts', 'slurm', 'start.sh'), [dir], { env, encoding: 'utf8', timeout: accounting ? 300_000 : 60_000 });
  const match = /SLURM_CONF=(\S+)/.exec(out);
  if (!match) throw new Error(`scripts/slurm/start.sh printed no SLURM_CONF: ${out}`);
  const conf = match[1]!;
  process.env.SLURM_CONF = conf;
  const stop = () => {
    spawnSync(join(root, 'scripts', 'slurm', 'stop.sh'), [dir], { stdio: 'ignore', timeout: 30_000 });
  };
  process.once('exit', stop);
  const command = (file: string, args: string[]) => execFileSync(file, args, { env: { ...process.env, SLURM_CONF: conf }, encoding: 'utf8', timeout: 30_000 });
  return {
    conf,
    dir,
    queued: () =>
      command('squeue', ['--noheader', '--format', '%i'])
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    state: (id) => {
      // squeue fails ("Invalid job id specified") for an id the controller does not know.
      const listed = spawnSync('squeue', ['--noheader', '--states=all', '--jobs', id, '--format', '%T'], {
        env: { ...process.env, SLURM_CONF: conf },
        encoding: 'utf8',
        timeout: 30_000,
      });
      return (listed.status === 0 && listed.stdout.trim()) || undefined;
    },
    rpcCount: () => rpcTotal(command('sdiag', [])),
    rpcCounts: () => rpcsByType(command('sdiag', [])),
    resetRpcCount: () => void command('sdiag', ['--reset']),
    ...(accounting
      ? {
          dbdRpcCount: () => rpcTotal(command('sacctmgr', ['show', 'stats'])),
          resetDbdRpcCount: () => void command('sacctmgr', ['-i', 'clear', 'stats']),
        }
      : {}),
    stop,
  };
}

/** The environment a child process (a gdflow server) needs to reach the cluster. */
export function slurmEnv(cluster: SlurmCluster): Record<string, string> {
  return { SLURM_CONF: cluster.conf };
}
