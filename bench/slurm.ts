import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSlurm, type SlurmCluster } from '../test/helpers/slurm.js';
import { registerDag } from './lib/dag.js';
import { createAccount, machine, median, startGdflow } from './lib/processes.js';

/**
 * bench:slurm — a DAG of 200 trivial jobs (100 chains of 2 steps) on a throwaway single-node Slurm
 * (scripts/slurm/start.sh), run by gdflow (`serve --executor slurm --slurm-wrap host`) and by snakemake 7.21's
 * generic cluster mode (`--cluster sbatch ...`: each job one sbatch; snakemake learns of ends from marker files its
 * job script writes, so it asks the controller nothing after submitting), alternating, BENCH_ROUNDS rounds
 * (default 3); medians, the ratio, and the RPCs the controller received per job (sdiag) for both.
 *
 * Snakemake's jobs get --mem=512M: each runs a snakemake process itself (about 100 MB), and the cluster kills a job
 * over its --mem; a job killed so writes none of the marker files snakemake waits for, and it would wait forever.
 *
 * Not `snakemake --slurm`: snakemake 7.21's Slurm executor reads job states with sacct, which needs slurmdbd and a
 * MariaDB; the test cluster has no accounting (docs/operating.md).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHAINS = Number(process.env.BENCH_CHAINS ?? 100);
const JOBS = CHAINS * 2;

interface Measure {
  seconds: number;
  rpcs: number;
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
    cluster.resetRpcCount();
    const before = cluster.rpcCount();
    const start = performance.now();
    const run = spawnSync('snakemake', ['--cluster', 'sbatch --parsable --export=ALL --mem=512M --cpus-per-task=1 --output=/dev/null --error=/dev/null', '--jobs', String(JOBS), '--latency-wait', '30', '--quiet'], {
      cwd: dir,
      // stdin from /dev/null: with a socket pair bash reads ~/.bashrc as if started by sshd (BENCHMARKS.md, bench:engine)
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, SLURM_CONF: cluster.conf },
    });
    const seconds = (performance.now() - start) / 1000;
    if (run.status !== 0) throw new Error(`snakemake failed: ${run.stderr.slice(-2000)}`);
    return { seconds, rpcs: cluster.rpcCount() - before };
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
    cluster.resetRpcCount();
    const before = cluster.rpcCount();
    const start = performance.now();
    const { task_id } = await transport.json<{ task_id: string }>('POST', `${project}/tasks/`, { json: { workflow_name: 'dag', workflow_version: 1, parameters: {} } });
    for (;;) {
      const task = await transport.json<{ status: string; reason: string }>('GET', `${project}/tasks/${task_id}/`);
      if (task.status === 'succeeded') break;
      if (['failed', 'stopped'].includes(task.status)) throw new Error(`gdflow task ${task.status}: ${task.reason}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const measure = { seconds: (performance.now() - start) / 1000, rpcs: cluster.rpcCount() - before };
    await transport.send('DELETE', `${project}/tasks/${task_id}/`);
    return measure;
  };
  return { server, round };
}

async function main() {
  const cluster = await startSlurm();
  const gdflow = await gdflowSetup(cluster);
  const results: { gdflow: Measure[]; snakemake: Measure[] } = { gdflow: [], snakemake: [] };
  try {
    for (let r = 1; r <= ROUNDS; r++) {
      const g = await gdflow.round();
      results.gdflow.push(g);
      process.stdout.write(`  round ${r} gdflow:    ${g.seconds.toFixed(1)} s, ${g.rpcs} controller RPCs (${(g.rpcs / JOBS).toFixed(2)} per job)\n`);
      const s = snakemakeRound(cluster);
      results.snakemake.push(s);
      process.stdout.write(`  round ${r} snakemake: ${s.seconds.toFixed(1)} s, ${s.rpcs} controller RPCs (${(s.rpcs / JOBS).toFixed(2)} per job)\n`);
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
  process.stdout.write(`\nbench:slurm on ${machine()}; ${JOBS} jobs (${CHAINS} chains of 2) on a single-node Slurm 22.05, medians of ${ROUNDS}\n`);
  process.stdout.write('| runner | wall time | controller RPCs per job |\n|---|---|---|\n');
  process.stdout.write(`| gdflow serve --executor slurm | ${g.toFixed(1)} s | ${gr.toFixed(2)} |\n`);
  process.stdout.write(`| snakemake --cluster sbatch | ${s.toFixed(1)} s | ${sr.toFixed(2)} |\n`);
  process.stdout.write(`gdflow is ${(s / g).toFixed(2)}x faster (target 2x); per round: ${results.gdflow.map((m, i) => (results.snakemake[i]!.seconds / m.seconds).toFixed(2)).join(', ')}\n`);
  process.stdout.write(`gdflow RPCs per job ${gr.toFixed(2)} (target <= 3)\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
