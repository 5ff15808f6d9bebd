import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, cpuSeconds, createAccount, machine, median, startGdflow } from './lib/processes.js';
import { load, run } from './lib/run.js';

/**
 * bench:wdl (issue 26) — a WIDTH-way scatter (1,000) of a trivial task, in the same run and alternating rounds:
 * 1. the workflow in WDL 1.0, run by `gdflow wdl run`;
 * 2. the same workflow in CWL v1.2, run by `gdflow cwl run` on the same server (target: WDL within 1.2x of it);
 * 3. the equivalent Snakefile, run by `snakemake --cores 2` with its default scheduler (target: gdflow's WDL run ≥ 3x
 *    faster).
 * Each writes one file per element (`echo N > out-N.txt`), and each gdflow run downloads them into its --outdir as a
 * runner's outputs, counted after every round. gdflow's server is its own process with 2 slots (`--cpus 2`, as
 * snakemake's `--cores 2`), the host executor (no sandbox: snakemake has none) and the call cache off (every round
 * runs every job, as snakemake does in a fresh directory). Wall times with their medians and ratios, and the server's
 * CPU per job, the engine's share of gdflow's time.
 * BENCH_SCATTER the width (1000), BENCH_ROUNDS the rounds (3), BENCH_EXECUTOR the server's executor (host),
 * BENCH_SKIP=snakemake skips the peer, BENCH_SERVER_NODE_ARGS profiles the server (bench/lib/processes.ts).
 */
const WIDTH = Number(process.env.BENCH_SCATTER ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EXECUTOR = process.env.BENCH_EXECUTOR ?? 'host';
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));

const WDL = `version 1.0

task echo {
  input {
    Int n
  }
  command <<<
    echo ~{n} > out-~{n}.txt
  >>>
  output {
    File out = "out-~{n}.txt"
  }
  runtime {
    cpu: 1
  }
}

workflow fan {
  input {
    Array[Int] ns
  }
  scatter (n in ns) {
    call echo { input: n = n }
  }
  output {
    Array[File] outs = echo.out
  }
}
`;

const CWL_TOOL = `cwlVersion: v1.2
class: CommandLineTool
baseCommand: echo
inputs:
  n: {type: int, inputBinding: {position: 1}}
stdout: out-$(inputs.n).txt
outputs:
  out: stdout
`;

const CWL_WORKFLOW = `cwlVersion: v1.2
class: Workflow
requirements:
  ScatterFeatureRequirement: {}
inputs:
  ns: int[]
steps:
  echo: {run: echo.cwl, scatter: n, in: {n: ns}, out: [out]}
outputs:
  outs: {type: "File[]", outputSource: echo/out}
`;

const SNAKEFILE = `rule all:
    input: expand("out-{n}.txt", n=range(${WIDTH}))

rule echo:
    output: "out-{n}.txt"
    shell: "echo {wildcards.n} > {output}"
`;

/** The three documents and their inputs, in a directory of their own. */
function documents(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wdl-'));
  const ns = Array.from({ length: WIDTH }, (_, i) => i);
  writeFileSync(join(dir, 'fan.wdl'), WDL);
  writeFileSync(join(dir, 'inputs.json'), JSON.stringify({ 'fan.ns': ns }));
  writeFileSync(join(dir, 'echo.cwl'), CWL_TOOL);
  writeFileSync(join(dir, 'scatter.cwl'), CWL_WORKFLOW);
  writeFileSync(join(dir, 'job.json'), JSON.stringify({ ns }));
  return dir;
}

type Runner = 'wdl' | 'cwl' | 'snakemake';

/** One runner's round in a fresh output directory: its wall time, once its WIDTH files are there. */
async function round(runner: Runner, dir: string, env: Record<string, string>): Promise<number> {
  const outdir = mkdtempSync(join(dir, `out-${runner}-`));
  let ran;
  if (runner === 'wdl') ran = await run(process.execPath, [CLI, 'wdl', 'run', '--quiet', '-i', 'inputs.json', '--outdir', outdir, 'fan.wdl'], env, dir);
  else if (runner === 'cwl') ran = await run(process.execPath, [CLI, 'cwl', 'run', '--quiet', '--outdir', outdir, 'scatter.cwl', 'job.json'], env, dir);
  else {
    writeFileSync(join(outdir, 'Snakefile'), SNAKEFILE);
    ran = await run('snakemake', ['--cores', '2', '--quiet'], {}, outdir);
  }
  const files = readdirSync(outdir).filter((name) => /^out-\d+\.txt$/.test(name)).length;
  rmSync(outdir, { recursive: true, force: true });
  if (ran.status !== 0) throw new Error(`${runner} failed (exit ${ran.status}):\n${ran.stderr.slice(-3000)}`);
  if (files !== WIDTH) throw new Error(`${runner}: ${files} output files, not ${WIDTH}`);
  return ran.seconds;
}

async function main(): Promise<void> {
  const snakemake = !SKIP.has('snakemake') && (await run('sh', ['-c', 'command -v snakemake'])).status === 0;
  console.log(`bench:wdl on ${machine()}, load average ${load()}; a ${WIDTH}-way scatter, ${ROUNDS} alternating rounds`);
  console.log(`gdflow's server: --executor ${EXECUTOR} --cpus 2 --call-caching off${snakemake ? '' : '; snakemake skipped or not installed'}`);
  const server = await startGdflow(['--executor', EXECUTOR, '--cpus', '2', '--call-caching', 'off']);
  const dir = documents();
  const runners: Runner[] = snakemake ? ['wdl', 'cwl', 'snakemake'] : ['wdl', 'cwl'];
  const times: Record<Runner, number[]> = { wdl: [], cwl: [], snakemake: [] };
  try {
    const key = createAccount(server.dataDir, server.url, 'wdlbench');
    const env = { GDFLOW_ENDPOINT: server.url, GDFLOW_ACCESS_KEY_ID: key.id, GDFLOW_ACCESS_KEY_SECRET: key.secret, GDFLOW_ACCOUNT: 'wdlbench' };
    for (let r = 1; r <= ROUNDS; r++) {
      const parts: string[] = [];
      for (const runner of runners) {
        const cpu = cpuSeconds(server.pid);
        const seconds = await round(runner, dir, env);
        times[runner].push(seconds);
        const serverCpu = cpuSeconds(server.pid) - cpu;
        const perJob = runner === 'snakemake' ? '' : ` (server CPU ${serverCpu.toFixed(1)} s, ${((serverCpu / WIDTH) * 1000).toFixed(1)} ms a job)`;
        parts.push(`${runner} ${seconds.toFixed(1)} s${perJob}`);
      }
      const ratios = `wdl/cwl ${(times.wdl[r - 1]! / times.cwl[r - 1]!).toFixed(2)}x${snakemake ? `, snakemake/wdl ${(times.snakemake[r - 1]! / times.wdl[r - 1]!).toFixed(2)}x` : ''}`;
      console.log(`  round ${r}: ${parts.join(', ')}; ${ratios}   load ${load()}`);
    }
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  const [w, c] = [median(times.wdl), median(times.cwl)];
  console.log(`medians: gdflow wdl run ${w.toFixed(1)} s, gdflow cwl run ${c.toFixed(1)} s: WDL / CWL ${(w / c).toFixed(2)}x (target ≤ 1.2x)`);
  if (snakemake) {
    const s = median(times.snakemake);
    console.log(`         snakemake --cores 2 ${s.toFixed(1)} s: gdflow's WDL run ${(s / w).toFixed(2)}x faster (target ≥ 3x)`);
  }
  console.log(`load average at the end ${load()}`);
}

await main();
