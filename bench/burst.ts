import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '../src/client/client.js';
import { GdApiError } from '../src/client/errors.js';
import { Transport } from '../src/client/transport.js';
import { copyWorkflow } from './lib/copy-workflow.js';
import { benchDatabase } from './lib/database.js';
import { CLI, createAccount, machine, median, startGdflow } from './lib/processes.js';

/**
 * bench:burst — BENCH_BURST (1,000) ActivateWorkflows sent at once to one API replica (issue 22, "Under load"):
 * without task_name (the server makes the names) against the same burst with names given (the peer). Each burst
 * runs on a fresh server (role api: nothing runs) and a fresh database; rounds alternate named and unnamed. The rate
 * is the calls answered 200 over the time from the first send to the last answer; every other answer is counted by
 * its status (a connection the server never answered as 'no answer'), nothing is retried.
 *
 * BENCH_DATABASE=postgres runs it on a throwaway PostgreSQL; BENCH_BASELINE=<a built gdflow checkout> runs that
 * build in the same rounds, for before/after.
 */
const BURST = Number(process.env.BENCH_BURST ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASELINE = process.env.BENCH_BASELINE ? join(resolve(process.env.BENCH_BASELINE), 'dist', 'src', 'cli', 'main.js') : undefined;

interface Burst {
  rate: number;
  seconds: number;
  errors: Record<string, number>;
}

/** One burst on a fresh server of `cli`: unnamed or named activations of a load → copy → store workflow. */
async function burst(named: boolean, cli: string, round: number, fresh: (name: string) => Promise<string[]>): Promise<Burst> {
  const args = await fresh(`burst_${named ? 'named' : 'unnamed'}_${round}_${cli === CLI ? 'this' : 'base'}_${process.pid}`);
  const server = await startGdflow(['--role', 'api', ...args], undefined, cli);
  try {
    const key = createAccount(server.dataDir, server.url, 'benchburst', args, cli);
    const client = new Client({ endpoint: server.url, accessKeyId: key.id, accessKeySecret: key.secret });
    const { workflow, input } = await copyWorkflow(client, 'benchburst', 'burst');
    // Nothing retried: every answer counts as it came.
    const transport = new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret }, retries: 0 });
    const path = '/accounts/benchburst/projects/default/tasks/';
    // The outputs are left blank: each task's default is made of its name, as a pipeline runner's would be.
    const body = (i: number) => ({
      workflow_name: workflow,
      ...(named ? { task_name: `sample_${String(i).padStart(5, '0')}` } : {}),
      parameters: { Inputs: { load: { data: [{ name: input }] } } },
    });
    const errors: Record<string, number> = {};
    const started = process.hrtime.bigint();
    const answers = await Promise.allSettled(Array.from({ length: BURST }, (_, i) => transport.json('POST', path, { json: body(i) })));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    for (const answer of answers) {
      if (answer.status === 'fulfilled') continue;
      const kind = answer.reason instanceof GdApiError ? `${answer.reason.status} ${answer.reason.errorCode}` : 'no answer';
      errors[kind] = (errors[kind] ?? 0) + 1;
    }
    const ok = answers.filter((a) => a.status === 'fulfilled').length;
    return { rate: ok / seconds, seconds, errors };
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const database = await benchDatabase();
  const builds: Array<[string, string]> = [['this build', CLI], ...(BASELINE ? [['baseline', BASELINE] as [string, string]] : [])];
  const results = new Map<string, Burst[]>();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [build, cli] of builds) {
        for (const named of [true, false]) {
          const label = `${build}, ${named ? 'named' : 'unnamed'}`;
          const result = await burst(named, cli, round, (name) => database.fresh(name));
          (results.get(label) ?? results.set(label, []).get(label)!).push(result);
          const errors =
            Object.entries(result.errors)
              .map(([kind, n]) => `${n} x ${kind}`)
              .join(', ') || 'none';
          process.stdout.write(`  round ${round}, ${label}: ${result.rate.toFixed(0)}/s (${result.seconds.toFixed(2)} s), errors: ${errors}\n`);
        }
      }
    }
  } finally {
    await database.stop();
  }
  process.stdout.write(`\nbench:burst on ${machine()}, store ${database.name}: ${BURST} ActivateWorkflows at once, ${ROUNDS} rounds, medians\n\n`);
  process.stdout.write('| build | named /s | unnamed /s | unnamed / named | errors (all rounds) |\n|---|---|---|---|---|\n');
  for (const [build] of builds) {
    const named = results.get(`${build}, named`)!;
    const unnamed = results.get(`${build}, unnamed`)!;
    const errors = [...named, ...unnamed].reduce((n, r) => n + Object.values(r.errors).reduce((a, b) => a + b, 0), 0);
    const rate = (runs: Burst[]) => median(runs.map((r) => r.rate));
    process.stdout.write(`| ${build} | ${rate(named).toFixed(0)} | ${rate(unnamed).toFixed(0)} | ${(rate(unnamed) / rate(named)).toFixed(2)}x | ${errors} |\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
