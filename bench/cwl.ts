import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, cpuSeconds, createAccount, machine, median, ROOT, startGdflow } from './lib/processes.js';
import { load, run } from './lib/run.js';

/**
 * bench:cwl (issue 24) — gdflow as a CWL runner against the reference runner, Debian's cwltool, in the same run:
 * 1. the conformance suite's `required` tests and 2. the whole suite, each through the project's driver at -j2, every
 *    test through `gdflow cwl run` on one gdflow server (its own process, bwrap) against `cwltool --no-container`:
 *    wall times and gdflow / cwltool (target ≤ 1.0x);
 * 3. a 200-way scatter of a trivial tool, `gdflow cwl run` on the same server against `cwltool --parallel
 *    --no-container`, alternating rounds: medians and cwltool / gdflow (target ≥ 3x faster).
 * BENCH_PARTS=required,suite,scatter chooses the parts, BENCH_ROUNDS the scatter's rounds (3), BENCH_SCATTER its
 * width (200), GDFLOW_CWL_SUITE the suite (../shared/cwl-v1.2 beside the repository), BENCH_EXECUTOR the server's
 * executor (bwrap), BENCH_SERVER_ARGS more server flags.
 */
const SUITE = process.env.GDFLOW_CWL_SUITE || join(ROOT, '..', 'shared', 'cwl-v1.2');
const PARTS = new Set((process.env.BENCH_PARTS ?? 'required,suite,scatter').split(',').map((p) => p.trim()));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WIDTH = Number(process.env.BENCH_SCATTER ?? 200);
const EXECUTOR = process.env.BENCH_EXECUTOR ?? 'bwrap';
/** More flags for gdflow's server, e.g. `--cpus 8`. */
const SERVER_ARGS = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
const DRIVER = join(ROOT, 'dist', 'scripts', 'cwl', 'main.js');
const CWLTOOL = process.env.BENCH_CWLTOOL ?? 'cwltool';

/** One driver run: its wall time (the driver's own, first test to last) and closing line. */
async function conformance(label: string, args: string[], env: Record<string, string>): Promise<{ wall: number; closing: string }> {
  const ran = await run(process.execPath, [DRIVER, '--suite', SUITE, '-j', '2', ...args], env);
  const wall = Number(/^wall time ([\d.]+) s$/m.exec(ran.stdout)?.[1] ?? NaN);
  const closing = ran.stdout.trim().split('\n').at(-1) ?? '';
  const failed = /^failed: (.*)$/m.exec(ran.stdout)?.[1];
  console.log(`  ${label.padEnd(8)} ${wall.toFixed(1).padStart(7)} s  ${closing}${failed ? `  (failed: ${failed})` : ''}   load ${load()}`);
  if (Number.isNaN(wall)) throw new Error(`${label}: the driver printed no wall time (exit ${ran.status}):\n${ran.stderr.slice(-2000)}`);
  return { wall, closing };
}

async function suitePart(name: string, tags: string[], env: Record<string, string>): Promise<void> {
  console.log(`\n${name}: the driver at -j2, ${SUITE}`);
  const gdflow = await conformance('gdflow', tags, env);
  const cwltool = await conformance('cwltool', [...tags, '--runner', `${CWLTOOL} --no-container`], {});
  console.log(`  gdflow / cwltool wall time: ${(gdflow.wall / cwltool.wall).toFixed(2)}x (target ≤ 1.0x)`);
}

/** A workflow scattering a one-word echo over WIDTH integers, in a directory of its own. */
function scatterFiles(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cwl-scatter-'));
  writeFileSync(
    join(dir, 'echo.cwl'),
    'cwlVersion: v1.2\nclass: CommandLineTool\nbaseCommand: echo\ninputs:\n  n: {type: int, inputBinding: {position: 1}}\nstdout: out-$(inputs.n).txt\noutputs:\n  out: stdout\n',
  );
  writeFileSync(
    join(dir, 'scatter.cwl'),
    'cwlVersion: v1.2\nclass: Workflow\nrequirements:\n  ScatterFeatureRequirement: {}\ninputs:\n  ns: int[]\n' +
      'steps:\n  echo: {run: echo.cwl, scatter: n, in: {n: ns}, out: [out]}\noutputs:\n  outs: {type: "File[]", outputSource: echo/out}\n',
  );
  return dir;
}

/**
 * Each round's job object: numbers no earlier round echoed, so that no round of gdflow's takes its jobs from the call
 * cache (the server's default), where cwltool has none: both sides run all their jobs every round.
 */
function scatterJob(dir: string, round: number): string {
  const job = `job-${round}.json`;
  writeFileSync(join(dir, job), JSON.stringify({ ns: Array.from({ length: WIDTH }, (_, i) => round * WIDTH + i) }));
  return job;
}

async function scatterRound(label: string, command: string, args: string[], env: Record<string, string>, dir: string, job: string): Promise<number> {
  const outdir = mkdtempSync(join(dir, `out-${label}-`));
  const ran = await run(command, [...args, '--outdir', outdir, 'scatter.cwl', job], env, dir);
  const files = readdirSync(outdir).length;
  rmSync(outdir, { recursive: true, force: true });
  if (ran.status !== 0) throw new Error(`${label} failed (exit ${ran.status}):\n${ran.stderr.slice(-2000)}`);
  if (files !== WIDTH) throw new Error(`${label}: ${files} files in the outdir, not ${WIDTH}`);
  return ran.seconds;
}

async function scatterPart(env: Record<string, string>, serverPid: number): Promise<void> {
  const dir = scatterFiles();
  console.log(`\nscatter: a ${WIDTH}-way scatter of echo, ${ROUNDS} alternating rounds`);
  const times = { gdflow: [] as number[], cwltool: [] as number[] };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const job = scatterJob(dir, round);
      const cpu = cpuSeconds(serverPid);
      const g = await scatterRound('gdflow', process.execPath, [CLI, 'cwl', 'run', '--quiet'], env, dir, job);
      // Where gdflow's time goes: the server's own CPU (engine, store, HTTP) per job, beside the jobs' processes.
      const serverCpu = cpuSeconds(serverPid) - cpu;
      const c = await scatterRound('cwltool', CWLTOOL, ['--parallel', '--no-container', '--quiet'], {}, dir, job);
      times.gdflow.push(g);
      times.cwltool.push(c);
      const perJob = ((serverCpu / WIDTH) * 1000).toFixed(1);
      console.log(
        `  round ${round}: gdflow ${g.toFixed(1)} s (server CPU ${serverCpu.toFixed(1)} s, ${perJob} ms a job), cwltool --parallel ${c.toFixed(1)} s: ${(c / g).toFixed(2)}x   load ${load()}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [g, c] = [median(times.gdflow), median(times.cwltool)];
  console.log(`  medians: gdflow ${g.toFixed(1)} s, cwltool --parallel ${c.toFixed(1)} s: gdflow ${(c / g).toFixed(2)}x faster (target ≥ 3x)`);
}

async function main(): Promise<void> {
  console.log(`bench:cwl on ${machine()}, load average ${load()}; gdflow's server: --executor ${EXECUTOR} ${SERVER_ARGS.join(' ')}`);
  const server = await startGdflow(['--executor', EXECUTOR, ...SERVER_ARGS]);
  try {
    const key = createAccount(server.dataDir, server.url, 'cwlbench');
    const env = { GDFLOW_ENDPOINT: server.url, GDFLOW_ACCESS_KEY_ID: key.id, GDFLOW_ACCESS_KEY_SECRET: key.secret, GDFLOW_ACCOUNT: 'cwlbench' };
    if (PARTS.has('required')) await suitePart('required', ['--tags', 'required'], env);
    if (PARTS.has('suite')) await suitePart('the whole suite', [], env);
    if (PARTS.has('scatter')) await scatterPart(env, server.pid);
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
  console.log(`\nload average at the end ${load()}`);
}

await main();
