import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startSlurm, type SlurmCluster } from '../test/helpers/slurm.js';
import { registerDag } from './lib/dag.js';
import { createAccount, machine, median, startGdflow } from './lib/processes.js';

/**
 * bench:slurm — a DAG of 200 trivial jobs (100 chains of 2 steps) on a throwaway single-node Slurm
 * (scripts/slurm/start.sh), run by gdflow (`serve --executor slurm --slurm-wrap host`) and by snakemake 7.21,
 * alternating, BENCH_ROUNDS rounds (default 3); medians, the ratio, and the RPCs the controller received per job
 * (sdiag) for both.
 *
 * The peer (BENCH_SLURM_PEER):
 * - `slurm` (the default): snakemake's Slurm executor, `snakemake --slurm`. It reads job states with sacct, so the
 *   cluster is started with accounting (SLURM_ACCOUNTING=1: slurmdbd and a throwaway MariaDB), for both runners;
 *   the RPCs slurmdbd received (`sacctmgr show stats`, slurmctld's own job records included) are shown too.
 *   Snakemake caps this executor's status checks (one sacct per job) at 1 per second and turns any higher
 *   --max-status-checks-per-second into 0.03 (its default 10 too: snakemake/scheduler.py); the bench passes 1,
 *   the fastest it allows. Its jobs get snakemake's default resources (--mem 1000, 1 CPU) and run snakemake
 *   twice each (the batch script, then `srun` of the job step). USER is set: the executor reads it to guess an
 *   account.
 * - `cluster`: the generic cluster mode (`--cluster sbatch ...`: each job one sbatch; snakemake learns of ends
 *   from marker files its job script writes, so it asks the controller nothing after submitting), on the cluster
 *   without accounting. Its jobs get --mem=512M: each runs a snakemake process itself (about 100 MB), and the
 *   cluster kills a job over its --mem; a job killed so writes none of the marker files snakemake waits for, and
 *   it would wait forever.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHAINS = Number(process.env.BENCH_CHAINS ?? 100);
const JOBS = CHAINS * 2;
const PEER = process.env.BENCH_SLURM_PEER ?? 'slurm';
if (PEER !== 'slurm' && PEER !== 'cluster') throw new Error(`BENCH_SLURM_PEER is 'slurm' or 'cluster', not '${PEER}'`);
const ACCOUNTING = PEER === 'slurm';
const PEER_NAME = PEER === 'slurm' ? 'snakemake --slurm' : 'snakemake --cluster sbatch';

function peerArgs(): string[] {
  const common = ['--jobs', String(JOBS), '--latency-wait', '30', '--quiet'];
  if (PEER === 'slurm') return ['--slurm', '--max-status-checks-per-second', '1', ...common];
  return ['--cluster', 'sbatch --parsable --export=ALL --mem=512M --cpus-per-task=1 --output=/dev/null --error=/dev/null', ...common];
}

interface Measure {
  seconds: number;
  rpcs: number;
  /** RPCs slurmdbd received (accounting only). */
  dbdRpcs?: number;
}

function resetCounts(cluster: SlurmCluster): () => Pick<Measure, 'rpcs' | 'dbdRpcs'> {
  cluster.resetRpcCount();
  cluster.resetDbdRpcCount?.();
  const before = cluster.rpcCount();
  const dbdBefore = cluster.dbdRpcCount?.();
  return () => {
    const rpcs = cluster.rpcCount() - before;
    const dbd = cluster.dbdRpcCount?.();
    return dbd === undefined || dbdBefore === undefined ? { rpcs } : { rpcs, dbdRpcs: dbd - dbdBefore };
  };
}

function describe(m: Measure): string {
  const dbd = m.dbdRpcs === undefined ? '' : `; slurmdbd ${m.dbdRpcs} (${(m.dbdRpcs / JOBS).toFixed(2)} per job)`;
  return `${m.seconds.toFixed(1)} s, ${m.rpcs} controller RPCs (${(m.rpcs / JOBS).toFixed(2)} per job)${dbd}`;
}

function snakefile(): string {
  return [
    `N = ${CHAINS}`,
    'rule all:',
    '    input: expand("b/{i}", i=range(N))',
    'rule a:',
    '    output: "a/{i}"',
    '    shell: "echo x > {output}"',
    'rule b:',
    '    input: "a/{i}"',
    '    output: "b/{i}"',
    '    shell: "cat {input} > {output}; echo x >> {output}"',
    '',
  ].join('\n');
}

function snakemakeRound(cluster: SlurmCluster): Measure {
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-bench-snakemake-'));
  try {
    writeFileSync(join(dir, 'Snakefile'), snakefile());
    const counts = resetCounts(cluster);
    const start = performance.now();
    const run = spawnSync('snakemake', peerArgs(), {
      cwd: dir,
      // stdin from /dev/null: with a socket pair bash reads ~/.bashrc as if started by sshd (BENCHMARKS.md, bench:engine)
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, SLURM_CONF: cluster.conf, USER: process.env.USER || userInfo().username },
    });
    const seconds = (performance.now() - start) / 1000;
    if (run.status !== 0) throw new Error(`snakemake failed: ${run.error?.message ?? ''} ${run.stderr.slice(-2000)}`);
    return { seconds, ...counts() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function gdflowSetup(cluster: SlurmCluster) {
  const server = await startGdflow(['--executor', 'slurm', '--slurm-wrap', 'host', '--cpus', '64', '--memory', '16g']);
  const { transport } = createAccount(server.dataDir, server.url, 'slurmbench');
  const project = '/accounts/slurmbench/projects/default';
  const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '64m' } };
  await registerDag(transport, project, { chains: CHAINS, steps: 2, requirements });
  const round = async (): Promise<Measure> => {
    const counts = resetCounts(cluster);
    const start = performance.now();
    const { task_id } = await transport.json<{ task_id: string }>('POST', `${project}/tasks/`, {
      json: { workflow_name: 'dag', workflow_version: 1, parameters: {} },
    });
    for (;;) {
      const task = await transport.json<{ status: string; reason: string }>('GET', `${project}/tasks/${task_id}/`);
      if (task.status === 'succeeded') break;
      if (['failed', 'stopped'].includes(task.status)) throw new Error(`gdflow task ${task.status}: ${task.reason}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const measure = { seconds: (performance.now() - start) / 1000, ...counts() };
    await transport.send('DELETE', `${project}/tasks/${task_id}/`);
    return measure;
  };
  return { server, round };
}

async function main() {
  const cluster = await startSlurm({ accounting: ACCOUNTING });
  const gdflow = await gdflowSetup(cluster);
  const results: { gdflow: Measure[]; snakemake: Measure[] } = { gdflow: [], snakemake: [] };
  try {
    for (let r = 1; r <= ROUNDS; r++) {
      const g = await gdflow.round();
      results.gdflow.push(g);
      process.stdout.write(`  round ${r} gdflow:    ${describe(g)}\n`);
      const s = snakemakeRound(cluster);
      results.snakemake.push(s);
      process.stdout.write(`  round ${r} snakemake: ${describe(s)}\n`);
    }
  } finally {
    await gdflow.server.stop();
    rmSync(gdflow.server.dataDir, { recursive: true, force: true });
    cluster.stop();
  }
  const g = median(results.gdflow.map((m) => m.seconds));
  const s = median(results.snakemake.map((m) => m.seconds));
  const gr = median(results.gdflow.map((m) => m.rpcs / JOBS));
  const sr = median(results.snakemake.map((m) => m.rpcs / JOBS));
  const dbd = (ms: Measure[]) => (ACCOUNTING ? ` ${median(ms.map((m) => (m.dbdRpcs ?? 0) / JOBS)).toFixed(2)} |` : '');
  process.stdout.write(
    `\nbench:slurm on ${machine()}; ${JOBS} jobs (${CHAINS} chains of 2) on a single-node Slurm 22.05${ACCOUNTING ? ' with accounting (slurmdbd)' : ''}, medians of ${ROUNDS}\n`,
  );
  process.stdout.write(
    `| runner | wall time | controller RPCs per job |${ACCOUNTING ? ' slurmdbd RPCs per job |' : ''}\n|---|---|---|${ACCOUNTING ? '---|' : ''}\n`,
  );
  process.stdout.write(`| gdflow serve --executor slurm | ${g.toFixed(1)} s | ${gr.toFixed(2)} |${dbd(results.gdflow)}\n`);
  process.stdout.write(`| ${PEER_NAME} | ${s.toFixed(1)} s | ${sr.toFixed(2)} |${dbd(results.snakemake)}\n`);
  process.stdout.write(
    `gdflow is ${(s / g).toFixed(2)}x faster (target 2x); per round: ${results.gdflow.map((m, i) => (results.snakemake[i]!.seconds / m.seconds).toFixed(2)).join(', ')}\n`,
  );
  process.stdout.write(`gdflow RPCs per job ${gr.toFixed(2)} (target <= 3)\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
