import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { authorizationHeader, signRequest } from '../src/signing/index.js';
import { benchDatabase } from './lib/database.js';
import { cpuSeconds, createAccount, machine, median, startGdflow, stopChild } from './lib/processes.js';

/**
 * bench:api — signed GetTool and ListTool against gdflow, and the same request targets against a
 * bare node:http server that answers gdflow's recorded bytes. Runs alternate (bare, gdflow, ...)
 * and the medians and ratios are printed.
 *
 * BENCH_BASELINE=<a built gdflow checkout> also runs that build's server in the same rounds, so that a change's
 * cost is measured against the code before it on the same machine at the same time (issue 15: the schema
 * validation of every request).
 */
const TOOLS = 100;
const VERSIONS = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const definition = (name: string) => ({
  name,
  cmd_template:
    'bwa mem -t {{ requirements.resources.cpu }} {{ inputs.reference[0].path }} {% for r in inputs.reads %}{{ r.path }} {% endfor %}> {{ outputs.sam[0].path }}',
  inputs: {
    reference: { type: 'file', formats: ['fasta', 'fa'], required: true, minitems: 1, maxitems: 1, hint: 'reference' },
    reads: { type: 'file', formats: ['fastq', 'fq'], required: true, minitems: 1, maxitems: 2, hint: 'reads' },
  },
  outputs: { sam: { type: 'file', formats: 'sam', required: true } },
  parameters: { threads: { type: 'integer', default: 2, minvalue: 1, maxvalue: 16 } },
  requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 2, mem: '4096m', disk: '4096m', network: false } },
});

type Request = { method: 'GET'; path: string; headers: Record<string, string> };

/** A gdflow server with TOOLS tools of VERSIONS versions each, and signed GetTool and ListTool requests for it. */
async function gdflowWithTools(databaseArgs: string[] = [], cli?: string) {
  const server = await startGdflow(databaseArgs, undefined, cli);
  const account = createAccount(server.dataDir, server.url, 'benchacct', databaseArgs, cli);
  const project = `/accounts/benchacct/projects/default`;
  process.stdout.write(`registering ${TOOLS} tools x ${VERSIONS} versions${databaseArgs.length ? ' (PostgreSQL)' : ''}...\n`);
  for (let t = 0; t < TOOLS; t++) {
    const name = `tool_${String(t).padStart(3, '0')}`;
    for (let v = 1; v <= VERSIONS; v++) {
      await account.transport.send('POST', `${project}/tools/`, { json: { tool_name: name, description: `bench tool ${t}` } });
      await account.transport.send('PUT', `${project}/tools/${name}/`, { json: { tool_version: v, configs: definition(name) } });
    }
  }
  // Signed requests with a fixed Date (valid for the whole run: the Date window is 15 minutes).
  const date = new Date().toUTCString();
  const signed = (target: string): Request => ({
    method: 'GET',
    path: target,
    headers: { Date: date, Authorization: authorizationHeader(account.id, signRequest(account.secret, { method: 'GET', target, headers: { Date: date } })) },
  });
  const getTargets = Array.from(
    { length: TOOLS * VERSIONS },
    (_, i) => `${project}/tools/tool_${String(i % TOOLS).padStart(3, '0')}/?tool_version=${(i % VERSIONS) + 1}`,
  );
  const scenarios: Record<'GetTool' | 'ListTool', Request[]> = { GetTool: getTargets.map(signed), ListTool: [signed(`${project}/tools/`)] };
  return { server, scenarios };
}

async function main() {
  const { server: gdflow, scenarios } = await gdflowWithTools();
  // BENCH_DATABASE=postgres: a second gdflow on PostgreSQL, measured in the same rounds (issue 12).
  const database = process.env.BENCH_DATABASE?.startsWith('postgres') ? await benchDatabase(process.env.BENCH_DATABASE) : undefined;
  const onPostgres = database ? await gdflowWithTools(database.args) : undefined;
  const baselineCli = process.env.BENCH_BASELINE ? join(resolve(process.env.BENCH_BASELINE), 'dist', 'src', 'cli', 'main.js') : undefined;
  const baseline = baselineCli ? await gdflowWithTools([], baselineCli) : undefined;

  // Record gdflow's answers for the bare server to replay byte for byte.
  const recorded: Record<string, { status: number; body: string; type: string }> = {};
  for (const request of [...scenarios.GetTool, ...scenarios.ListTool]) {
    const response = await fetch(gdflow.url + request.path, { headers: request.headers });
    recorded[request.path] = { status: response.status, type: response.headers.get('content-type') ?? 'application/json', body: await response.text() };
    if (response.status !== 200) throw new Error(`${request.path}: ${response.status} ${recorded[request.path]!.body}`);
  }
  const recordFile = join(gdflow.dataDir, 'recorded.json');
  writeFileSync(recordFile, JSON.stringify(recorded));
  const bare = spawn(process.execPath, [join(import.meta.dirname, 'lib', 'bare-server.js'), recordFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bareUrl = await new Promise<string>((resolve) => bare.stdout.once('data', (d: Buffer) => resolve(/listening on (\S+)/.exec(d.toString())![1]!)));

  type Label = 'bare' | 'gdflow' | 'gdflow-pg' | 'baseline';
  const results: Record<string, Record<Label, Array<{ rps: number; p99: number; errors: number; cpuUs: number }>>> = {};
  const pids: Record<Label, number> = { bare: bare.pid!, gdflow: gdflow.pid, 'gdflow-pg': onPostgres?.server.pid ?? 0, baseline: baseline?.server.pid ?? 0 };
  const targets: Array<[Label, string]> = [
    ['bare', bareUrl],
    ['gdflow', gdflow.url],
    ...(onPostgres ? [['gdflow-pg', onPostgres.server.url] as [Label, string]] : []),
    ...(baseline ? [['baseline', baseline.server.url] as [Label, string]] : []),
  ];
  for (const scenario of Object.keys(scenarios) as Array<keyof typeof scenarios>) {
    results[scenario] = { bare: [], gdflow: [], 'gdflow-pg': [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, url] of targets) {
        // The PostgreSQL server has keys of its own: its requests are signed with them.
        const requests = label === 'gdflow-pg' ? onPostgres!.scenarios[scenario] : label === 'baseline' ? baseline!.scenarios[scenario] : scenarios[scenario];
        const cpuBefore = cpuSeconds(pids[label]);
        const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests });
        const cpuUs = ((cpuSeconds(pids[label]) - cpuBefore) * 1e6) / result.requests.total;
        const errors = result.errors + result.non2xx + result.timeouts;
        results[scenario][label].push({ rps: result.requests.average, p99: result.latency.p99, errors, cpuUs });
        process.stdout.write(
          `  ${scenario.padEnd(8)} ${label.padEnd(6)} round ${round + 1}: ${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms, server CPU ${cpuUs.toFixed(1)} us/request, errors ${errors}\n`,
        );
      }
    }
  }
  await stopChild(bare);
  await gdflow.stop();
  rmSync(gdflow.dataDir, { recursive: true, force: true });
  if (onPostgres) {
    await onPostgres.server.stop();
    rmSync(onPostgres.server.dataDir, { recursive: true, force: true });
  }
  await database?.stop();
  if (baseline) {
    await baseline.server.stop();
    rmSync(baseline.server.dataDir, { recursive: true, force: true });
  }

  process.stdout.write(`\nbench:api on ${machine()}; ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds, medians\n`);
  process.stdout.write(
    '| operation | bare node:http req/s | gdflow req/s | ratio | bare p99 ms | gdflow p99 ms | server CPU per request, bare / gdflow | gdflow errors |\n|---|---|---|---|---|---|---|---|\n',
  );
  for (const [scenario, r] of Object.entries(results)) {
    const bareRps = median(r.bare.map((x) => x.rps));
    const gdRps = median(r.gdflow.map((x) => x.rps));
    const errors = r.gdflow.reduce((sum, x) => sum + x.errors, 0);
    const cpu = `${median(r.bare.map((x) => x.cpuUs)).toFixed(1)} / ${median(r.gdflow.map((x) => x.cpuUs)).toFixed(1)} us`;
    process.stdout.write(
      `| ${scenario} | ${bareRps.toFixed(0)} | ${gdRps.toFixed(0)} | ${(gdRps / bareRps).toFixed(2)}x | ${median(r.bare.map((x) => x.p99))} | ${median(r.gdflow.map((x) => x.p99))} | ${cpu} | ${errors} |\n`,
    );
  }
  if (onPostgres) {
    for (const [scenario, r] of Object.entries(results)) {
      const rps = (label: Label) => median(r[label].map((x) => x.rps));
      process.stdout.write(
        `${scenario} on PostgreSQL: ${rps('gdflow-pg').toFixed(0)} req/s, ${(rps('gdflow-pg') / rps('gdflow')).toFixed(2)}x of SQLite, ${(rps('gdflow-pg') / rps('bare')).toFixed(2)}x of bare\n`,
      );
    }
  }
  if (baseline) {
    for (const [scenario, r] of Object.entries(results)) {
      const rps = (label: Label) => median(r[label].map((x) => x.rps));
      const cpu = (label: Label) => median(r[label].map((x) => x.cpuUs));
      process.stdout.write(
        `${scenario} against the baseline (${process.env.BENCH_BASELINE}): ${rps('gdflow').toFixed(0)} / ${rps('baseline').toFixed(0)} req/s = ${(rps('gdflow') / rps('baseline')).toFixed(2)}x; ` +
          `server CPU ${cpu('gdflow').toFixed(1)} / ${cpu('baseline').toFixed(1)} us per request; per round ${r.gdflow.map((x, i) => `${(x.rps / r.baseline[i]!.rps).toFixed(2)}x`).join(', ')}\n`,
      );
    }
  }
  // The ratio above is of the medians; each round's own ratio shows how much the machine moved.
  for (const [scenario, r] of Object.entries(results)) {
    process.stdout.write(`${scenario} per-round ratios: ${r.gdflow.map((x, i) => `${(x.rps / r.bare[i]!.rps).toFixed(2)}x`).join(', ')}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
