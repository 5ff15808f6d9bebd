import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDatabase } from './lib/database.js';
import { registerDag } from './lib/dag.js';
import { defaultUlimits } from '../src/engine/executors/container/ulimits.js';
import { cpuSeconds, createAccount, machine, median, peakRssMb, ROOT, startGdflow, type ServerProcess } from './lib/processes.js';

/**
 * CPU seconds (all cores: user, nice, system, irq, softirq) the whole machine has used so far. Steal time (the
 * hypervisor running someone else) is not counted: it is not work of any process here.
 */
function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
  return (user + nice + system + irq + softirq) / 100;
}

/**
 * bench:engine — a DAG of 1,000 trivial jobs (250 chains of 4 steps) run with 2 parallel slots by
 * gdflow's engine, by GNU make -j2 and by snakemake --cores 2, in the same run, alternating.
 *
 * Three fair pairs (../shared/notes/benchmarks.md): gdflow with the bubblewrap sandbox against make
 * running every recipe under the same kind of bwrap command; gdflow's host executor (no sandbox)
 * against plain make; gdflow's podman executor against make running every recipe under the same
 * `podman run` (the floor for containerised jobs), on a smaller DAG of the same shape (40 jobs by
 * default: a container costs about 0.15 s of CPU, so 1,000 would take minutes per round). Snakemake
 * runs plain (it has no sandbox of its own), with its default (ILP) scheduler and with
 * `--scheduler greedy`; gdflow is compared with the faster of the two.
 */
const CHAINS = Number(process.env.BENCH_CHAINS ?? 250);
const STEPS = 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const JOBS = CHAINS * STEPS;
const CONTAINER_CHAINS = Number(process.env.BENCH_CONTAINER_CHAINS ?? 10);
const CONTAINER_JOBS = CONTAINER_CHAINS * STEPS;
/**
 * How often the bench asks the server whether its task has ended (BENCH_POLL_MS). Each GetTask is server CPU that the
 * run's "server CPU per job" would count as the engine's; the run's wall time is taken from the task's end as the
 * server recorded it, so a slower poll does not lengthen it.
 */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 500);
/** The image both sides of the container pair run in (scripts/images/build-tiny.sh). */
const TINY_IMAGE = 'localhost/gdflow-tiny:latest';

/** BENCH_SKIP=snakemake,make skips peers (for quick runs); a skipped peer is reported as such. */
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const have = (command: string) => !SKIP.has(command) && spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

const BWRAP = 'bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent --new-session';

/**
 * The `podman run` of a recipe: the container gdflow's podman executor makes for a job (executors/container/run-args.ts: the
 * same image, limits, file systems and flags), run attached and removed on exit (`--rm`) as a plain runner would,
 * with the make directory as /var/data. gdflow's executor adds what only it needs: a detached start, `wait`,
 * the removal, the name and label, the log files and its script as the container's first process.
 */
function podmanRun(): string {
  const tmpfs = 'rw,exec,nosuid,nodev,mode=1777';
  return [
    'podman run --rm --pull=never --network none --cpus 1 --memory 64m --memory-swap 64m',
    ...defaultUlimits().map((u) => `--ulimit ${u}`),
    `--user 0:0 --read-only --tmpfs /tmp:${tmpfs} --tmpfs /var/tmp:${tmpfs} --cap-drop all --security-opt no-new-privileges`,
    '--hostname gdflow --stop-signal SIGTERM --log-driver none --workdir /var/data',
    '--env HOME=/var/data --env TMPDIR=/tmp --env LANG=C.UTF-8 --mount type=bind,source=$(CURDIR),destination=/var/data',
    `--entrypoint /bin/sh ${TINY_IMAGE} -c`,
  ].join(' ');
}

function makefile(sandbox: 'none' | 'bwrap' | 'podman', chains = CHAINS): string {
  const wrap = (cmd: string) =>
    sandbox === 'bwrap' ? `${BWRAP} --bind $(CURDIR) $(CURDIR) --chdir $(CURDIR) sh -c '${cmd}'` : sandbox === 'podman' ? `${podmanRun()} '${cmd}'` : cmd;
  const lines = [`N := ${chains}`, 'IDS := $(shell seq 1 $(N))', `all: $(foreach i,$(IDS),s${STEPS}/$(i).txt)`, '.SECONDARY:'];
  lines.push('s1/%.txt:', `\t@mkdir -p s1; ${wrap('echo x > $@')}`);
  for (let s = 2; s <= STEPS; s++) lines.push(`s${s}/%.txt: s${s - 1}/%.txt`, `\t@mkdir -p s${s}; ${wrap('cat $< > $@; echo x >> $@')}`);
  return `${lines.join('\n')}\n.PHONY: all\n`;
}

function snakefile(): string {
  const rules = [
    `rule all:\n    input: expand("s${STEPS}/{i}.txt", i=range(1, ${CHAINS + 1}))`,
    'rule s1:\n    output: "s1/{i}.txt"\n    shell: "echo x > {output}"',
  ];
  for (let s = 2; s <= STEPS; s++)
    rules.push(`rule s${s}:\n    input: "s${s - 1}/{i}.txt"\n    output: "s${s}/{i}.txt"\n    shell: "cat {input} > {output}; echo x >> {output}"`);
  return `${rules.join('\n')}\n`;
}

function runIn(dir: string, files: Record<string, string>, command: string, args: string[]): number {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const start = performance.now();
  // stdin from /dev/null: Node's default stdin is a socket pair, and bash (which snakemake runs every job
  // with) reads ~/.bashrc when its stdin is a socket, as if started by sshd. On a machine whose .bashrc
  // sets up pyenv that adds tens of milliseconds to every snakemake job, which is not snakemake's cost.
  const result = spawnSync(command, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const seconds = (performance.now() - start) / 1000;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr.slice(-2000)}`);
  return seconds;
}

/** Poll a task every POLL_MS until it has succeeded; its end time as the server recorded it (null if it has none). */
async function succeeded(transport: ReturnType<typeof createAccount>['transport'], path: string): Promise<number | null> {
  for (;;) {
    const task = await transport.json<{ status: string; reason: string; endTime: number | null }>('GET', path);
    if (task.status === 'succeeded') return task.endTime;
    if (['failed', 'stopped'].includes(task.status)) throw new Error(`gdflow task ${task.status}: ${task.reason}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function gdflowSetup(
  executor: 'bwrap' | 'host' | 'podman',
  databaseArgs: string[] = [],
  chains = CHAINS,
  options: { keep?: boolean; caching?: boolean } = {},
): Promise<{ server: ServerProcess; run: () => Promise<number>; serverCpu: number[]; activation: number[]; deleteKept: () => Promise<void> }> {
  const jobs = chains * STEPS;
  const serverCpu: number[] = [];
  /** Seconds ActivateWorkflow took to answer (validation, plan, 1,000 job rows), part of each run's time. */
  const activation: number[] = [];
  // The DAG's chains are alike: with the call cache on, most of a task's jobs would reuse another chain's, and the
  // peers run every job. The cache stays off for the comparisons (keys are still made, so its cost is in), and on for
  // the cache case.
  const caching = options.caching ? [] : ['--call-caching', 'off'];
  const server = await startGdflow(['--executor', executor, '--cpus', '2', ...caching, ...databaseArgs]);
  const { transport } = createAccount(server.dataDir, server.url, 'enginebench', databaseArgs);
  const project = '/accounts/enginebench/projects/default';
  const requirements = { container: { image: executor === 'podman' ? TINY_IMAGE : 'debian:bookworm' }, resources: { cpu: 1, mem: '64m' } };
  await registerDag(transport, project, { chains, steps: STEPS, requirements });
  /** Tasks run with `keep`, deleted by deleteKept. */
  const kept: string[] = [];
  const run = async () => {
    const cpuBefore = cpuSeconds(server.pid);
    const start = performance.now();
    const startedAt = Date.now() / 1000;
    const { task_id } = await transport.json<{ task_id: string }>('POST', `${project}/tasks/`, {
      json: { workflow_name: 'dag', workflow_version: 1, parameters: {} },
    });
    const answered = (performance.now() - start) / 1000;
    activation.push(answered);
    const endTime = await succeeded(transport, `${project}/tasks/${task_id}/`);
    const cpu = (cpuSeconds(server.pid) - cpuBefore) / jobs;
    serverCpu.push(cpu);
    // The task's end as the server recorded it (the same machine's clock), so that the poll's interval adds nothing;
    // never before ActivateWorkflow's answer: a task whose jobs are all cache hits is recorded as ended inside the
    // activation's transaction, before its commit and answer, and the caller has it only with the answer.
    const seconds = endTime === null ? (performance.now() - start) / 1000 : Math.max(endTime - startedAt, answered);
    process.stdout.write(`  (${executor}: server CPU ${(cpu * 1000).toFixed(2)} ms/job)\n`);
    // Delete the task so the next round starts from the same state (BENCH_KEEP=1 keeps it, to study its jobs' times).
    if (options.keep) kept.push(task_id);
    else if (!process.env.BENCH_KEEP) await transport.send('DELETE', `${project}/tasks/${task_id}/`);
    else process.stdout.write(`  kept task ${task_id} in ${server.dataDir}\n`);
    return seconds;
  };
  const deleteKept = async () => {
    for (const id of kept.splice(0)) await transport.send('DELETE', `${project}/tasks/${id}/`);
  };
  return { server, run, serverCpu, activation, deleteKept };
}

/**
 * The cache case (issue 17): the DAG run once, then an identical task at once, every job of which is served from
 * the call cache; against snakemake (and make) re-running the same DAG with every output up to date. Each round
 * starts from nothing: gdflow's two tasks are deleted after it (so the next round's first run runs), the peers'
 * directories are made afresh.
 */
async function cacheCase(
  work: string,
  record: (name: string, measure: () => number | Promise<number>, jobs?: number) => Promise<void>,
  peers: { make: boolean; snakemake: boolean },
) {
  const cached = await gdflowSetup('host', [], CHAINS, { keep: true, caching: true });
  for (let round = 0; round < ROUNDS; round++) {
    await record('gdflow cache: first', cached.run);
    await record('gdflow cache: second', cached.run);
    await cached.deleteKept();
    if (peers.make) {
      const dir = join(work, 'make-cache');
      runIn(dir, { Makefile: makefile('none') }, 'make', ['-j2', '-s']);
      await record('make -j2, up to date', () => timeIn(dir, 'make', ['-j2', '-s']));
    }
    if (peers.snakemake) {
      const dir = join(work, 'snakemake-cache');
      runIn(dir, { Snakefile: snakefile() }, 'snakemake', ['--cores', '2', '--quiet', '--scheduler', 'greedy']);
      await record('snakemake, up to date', () => timeIn(dir, 'snakemake', ['--cores', '2', '--quiet']));
    }
  }
  // Each round runs the task twice: the second of each pair is the run from the cache, whose jobs the activation decides.
  const answered = (runs: number) =>
    cached.activation
      .filter((_, i) => i % 2 === runs)
      .map((s) => `${(s * 1000).toFixed(0)} ms`)
      .join(', ');
  process.stdout.write(`cache case: ActivateWorkflow answered in ${answered(0)} (first runs), ${answered(1)} (runs from the cache)\n`);
  await cached.server.stop();
  if (!process.env.BENCH_KEEP) rmSync(cached.server.dataDir, { recursive: true, force: true });
}

/** Time a command in a directory as it is (runIn makes the directory afresh first). */
function timeIn(dir: string, command: string, args: string[]): number {
  const start = performance.now();
  const result = spawnSync(command, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr.slice(-2000)}`);
  return (performance.now() - start) / 1000;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'gdflow-engine-bench-'));
  const results: Record<string, number[]> = {};
  const busy: Record<string, number[]> = {};
  /** Runs one measurement; also records the machine's CPU time per job during it (all processes). */
  const record = async (name: string, measure: () => number | Promise<number>, jobs = JOBS) => {
    const busyBefore = machineBusySeconds();
    const seconds = await measure();
    const cpuPerJob = (machineBusySeconds() - busyBefore) / jobs;
    (results[name] ??= []).push(seconds);
    (busy[name] ??= []).push(cpuPerJob);
    process.stdout.write(`  ${name.padEnd(22)} ${seconds.toFixed(2)} s, machine CPU ${(cpuPerJob * 1000).toFixed(1)} ms/job\n`);
  };
  const hasMake = have('make');
  const hasSnakemake = have('snakemake');
  const hasBwrap = have('bwrap');
  if (!hasMake) process.stdout.write('GNU make is not installed or skipped: no make peers (apt-get install make)\n');
  if (!hasSnakemake) process.stdout.write('snakemake is not installed or skipped: no snakemake peer (apt-get install --no-install-recommends snakemake)\n');
  if (!hasBwrap) process.stdout.write('bubblewrap is not installed: skipping the sandboxed runs (apt-get install bubblewrap)\n');
  // BENCH_SKIP=podman skips the container pair.
  const hasPodman = have('podman');
  if (!hasPodman) process.stdout.write('podman is not installed or skipped: no container pair (apt-get install podman runc)\n');
  if (hasPodman) {
    const built = spawnSync(join(ROOT, 'scripts', 'images', 'build-tiny.sh'), [], { encoding: 'utf8', env: { ...process.env, IMAGE: TINY_IMAGE } });
    if (built.status !== 0) throw new Error(`building ${TINY_IMAGE} failed: ${built.stderr}`);
  }

  const sandboxed = hasBwrap ? await gdflowSetup('bwrap') : undefined;
  const host = await gdflowSetup('host');
  // BENCH_DATABASE=postgres: the host executor on PostgreSQL as well, in the same rounds (issue 12: >= 0.7x SQLite).
  const database = process.env.BENCH_DATABASE?.startsWith('postgres') ? await benchDatabase(process.env.BENCH_DATABASE) : undefined;
  const onPostgres = database ? await gdflowSetup('host', database.args) : undefined;
  const contained = hasPodman ? await gdflowSetup('podman', [], CONTAINER_CHAINS) : undefined;
  process.stdout.write(`${JOBS} jobs (${CHAINS} chains x ${STEPS} steps), 2 parallel slots, ${ROUNDS} rounds\n`);
  if (contained) process.stdout.write(`container pair: ${CONTAINER_JOBS} jobs (${CONTAINER_CHAINS} chains x ${STEPS} steps) in ${TINY_IMAGE}\n`);
  // BENCH_MAIN=0 leaves the comparison rounds out (the cache case alone).
  for (let round = 0; round < (process.env.BENCH_MAIN === '0' ? 0 : ROUNDS); round++) {
    if (hasMake) await record('make -j2', () => runIn(join(work, 'make'), { Makefile: makefile('none') }, 'make', ['-j2', '-s']));
    await record('gdflow (host)', host.run);
    if (onPostgres) await record('gdflow (host, pg)', onPostgres.run);
    if (hasMake && hasBwrap) await record('make -j2 + bwrap', () => runIn(join(work, 'makebwrap'), { Makefile: makefile('bwrap') }, 'make', ['-j2', '-s']));
    if (sandboxed) await record('gdflow (bwrap)', sandboxed.run);
    if (hasMake && contained)
      await record(
        'make -j2 + podman',
        () => runIn(join(work, 'makepodman'), { Makefile: makefile('podman', CONTAINER_CHAINS) }, 'make', ['-j2', '-s']),
        CONTAINER_JOBS,
      );
    if (contained) await record('gdflow (podman)', contained.run, CONTAINER_JOBS);
    if (hasSnakemake) {
      await record('snakemake --cores 2', () => runIn(join(work, 'snakemake'), { Snakefile: snakefile() }, 'snakemake', ['--cores', '2', '--quiet']));
      await record('snakemake, greedy', () =>
        runIn(join(work, 'snakemake'), { Snakefile: snakefile() }, 'snakemake', ['--cores', '2', '--quiet', '--scheduler', 'greedy']),
      );
    }
  }
  // BENCH_CACHE=0 leaves the cache case out.
  if (process.env.BENCH_CACHE !== '0') await cacheCase(work, record, { make: hasMake, snakemake: hasSnakemake });
  const rss = { host: peakRssMb(host.server.pid), bwrap: sandboxed ? peakRssMb(sandboxed.server.pid) : undefined };
  await host.server.stop();
  await sandboxed?.server.stop();
  await contained?.server.stop();
  await onPostgres?.server.stop();
  await database?.stop();
  rmSync(work, { recursive: true, force: true });
  if (!process.env.BENCH_KEEP) for (const s of [host.server, sandboxed?.server, contained?.server]) if (s) rmSync(s.dataDir, { recursive: true, force: true });

  const m = (name: string) => (results[name] ? median(results[name]) : undefined);
  const fmt = (x: number | undefined) => (x === undefined ? 'skipped' : `${x.toFixed(2)} s`);
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? 'n/a' : `${(a / b).toFixed(2)}x`);
  process.stdout.write(`\nbench:engine on ${machine()}; ${JOBS} jobs, 2 slots, medians of ${ROUNDS}\n`);
  const cpu = (name: string) => (busy[name] ? `${(median(busy[name]) * 1000).toFixed(1)} ms` : '');
  const row = (label: string, name: string, peer: string, ratioText: string) =>
    process.stdout.write(`| ${label} | ${fmt(m(name))} | ${cpu(name)} | ${peer} | ${ratioText} |\n`);
  process.stdout.write('| runner | wall time | machine CPU per job | compared with | ratio |\n|---|---|---|---|---|\n');
  row('make -j2', 'make -j2', '', '');
  row('gdflow, host executor', 'gdflow (host)', 'make -j2', ratio(m('gdflow (host)'), m('make -j2')));
  if (onPostgres)
    row('gdflow, host executor, on PostgreSQL', 'gdflow (host, pg)', 'gdflow, host, SQLite: throughput', ratio(m('gdflow (host)'), m('gdflow (host, pg)')));
  row('make -j2, each recipe under bwrap', 'make -j2 + bwrap', '', '');
  row('gdflow, bwrap sandbox', 'gdflow (bwrap)', 'make -j2 + bwrap', ratio(m('gdflow (bwrap)'), m('make -j2 + bwrap')));
  row(`make -j2, each recipe under podman run (${CONTAINER_JOBS} jobs)`, 'make -j2 + podman', '', '');
  row(`gdflow, podman executor (${CONTAINER_JOBS} jobs)`, 'gdflow (podman)', 'make -j2 + podman', ratio(m('gdflow (podman)'), m('make -j2 + podman')));
  // Snakemake's default scheduler solves an ILP (with the CBC solver) to pick jobs, which on this DAG
  // takes from seconds to minutes from run to run; the greedy one is steady. gdflow is compared with the
  // faster of the two, so that a bad day of the solver does not flatter gdflow.
  const snakemakeBest = Math.min(m('snakemake --cores 2') ?? Infinity, m('snakemake, greedy') ?? Infinity);
  const best = Number.isFinite(snakemakeBest) ? snakemakeBest : undefined;
  const faster = (peer: string) => `${ratio(m(peer), m('gdflow (bwrap)'))} / ${ratio(m(peer), m('gdflow (host)'))} faster`;
  row('snakemake --cores 2 (default ILP scheduler)', 'snakemake --cores 2', 'gdflow bwrap / host', faster('snakemake --cores 2'));
  row('snakemake --cores 2 --scheduler greedy', 'snakemake, greedy', 'gdflow bwrap / host', faster('snakemake, greedy'));
  process.stdout.write(
    `| gdflow vs the faster snakemake (${fmt(best)}) | | | gdflow bwrap / host | ${ratio(best, m('gdflow (bwrap)'))} / ${ratio(best, m('gdflow (host)'))} faster |\n`,
  );
  // Within a round the runners run back to back, so a round's ratios are less moved by the machine's drift than
  // ratios of medians; both are printed.
  const perRound = (a: string, b: string) => {
    const [x, y] = [results[a], results[b]];
    return x && y ? x.map((value, i) => (y[i] === undefined ? '?' : `${(value / y[i]).toFixed(2)}x`)).join(', ') : 'n/a';
  };
  if (onPostgres) process.stdout.write(`per round: PostgreSQL / SQLite throughput ${perRound('gdflow (host)', 'gdflow (host, pg)')}\n`);
  process.stdout.write(
    `per round: host / make ${perRound('gdflow (host)', 'make -j2')}; bwrap / make + bwrap ${perRound('gdflow (bwrap)', 'make -j2 + bwrap')}; ` +
      `podman / make + podman ${perRound('gdflow (podman)', 'make -j2 + podman')}; ` +
      `snakemake / host ${perRound('snakemake --cores 2', 'gdflow (host)')}; snakemake / bwrap ${perRound('snakemake --cores 2', 'gdflow (bwrap)')}\n`,
  );
  if (results['gdflow cache: second']) {
    process.stdout.write(
      `\ncache case: the DAG again with every job from the call cache (${JOBS} jobs; medians of ${ROUNDS})\n` +
        '| runner | wall time | machine CPU per job | compared with | ratio |\n|---|---|---|---|---|\n',
    );
    row('gdflow, first run (host executor)', 'gdflow cache: first', '', '');
    row('gdflow, second run: all from the cache', 'gdflow cache: second', 'its first run', ratio(m('gdflow cache: second'), m('gdflow cache: first')));
    row(
      'snakemake, everything up to date',
      'snakemake, up to date',
      'gdflow from the cache',
      `${ratio(m('snakemake, up to date'), m('gdflow cache: second'))} faster`,
    );
    row(
      'make -j2, everything up to date',
      'make -j2, up to date',
      'gdflow from the cache',
      `${ratio(m('make -j2, up to date'), m('gdflow cache: second'))} faster`,
    );
    process.stdout.write(
      `per round: second / first ${perRound('gdflow cache: second', 'gdflow cache: first')}; snakemake up to date / gdflow cached ${perRound('snakemake, up to date', 'gdflow cache: second')}\n`,
    );
  }
  const medianMs = (seconds: number[] | undefined) => (seconds && seconds.length ? `${(median(seconds) * 1000).toFixed(1)} ms` : '?');
  process.stdout.write(
    `server CPU per job (median): host ${medianMs(host.serverCpu)}, bwrap ${medianMs(sandboxed?.serverCpu)}, podman ${medianMs(contained?.serverCpu)}\n`,
  );
  process.stdout.write(`ActivateWorkflow answered in (median): host ${medianMs(host.activation)}, bwrap ${medianMs(sandboxed?.activation)}\n`);
  process.stdout.write(`server peak RSS: host ${rss.host?.toFixed(0) ?? '?'} MiB, bwrap ${rss.bwrap?.toFixed(0) ?? '?'} MiB\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
