import { rmSync } from 'node:fs';
import { Client } from '../src/client/client.js';
import { Transport } from '../src/client/transport.js';
import { benchDatabase } from './lib/database.js';
import { createAccount, machine, median, startGdflow } from './lib/processes.js';

/**
 * bench:tes — issue 25's speed check of TES: BENCH_TES_TASKS (1,000) trivial TES tasks (`true`, one executor) created
 * by BENCH_TES_CLIENTS (8) concurrent clients with Basic credentials, against the peer issue 25 names: gdflow's own
 * ActivateWorkflow of as many one-node tasks (a tool running `true`), sent the same way, in the same run, on the same
 * kind of fresh server. Funnel publishes no figures to compare with. Each side reports its creation rate (tasks
 * answered 200 per second of sending) and the time from the first send until every task has ended; rounds alternate
 * the two sides on fresh servers and databases (BENCH_DATABASE=postgres: a throwaway PostgreSQL), with the call cache
 * off so that every task runs. The target: TES at least 0.8x of ActivateWorkflow.
 */
const TASKS = Number(process.env.BENCH_TES_TASKS ?? 1000);
const CLIENTS = Number(process.env.BENCH_TES_CLIENTS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EXECUTOR = process.env.BENCH_EXECUTOR ?? 'host';
const TIMEOUT_MS = 20 * 60_000;

type Side = 'TES' | 'ActivateWorkflow';

interface Round {
  createdPerSecond: number;
  /** From the first send until every task has ended. */
  allEndedSeconds: number;
  failed: number;
}

/** Send `count` requests from `clients` concurrent senders; the seconds it took. */
async function send(count: number, clients: number, one: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < count; i = next++) await one(i);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Poll the GeneDock task list until no task of the project is unended; the number that failed. */
async function untilAllEnded(transport: Transport, account: string, started: bigint): Promise<{ seconds: number; failed: number }> {
  const path = `/accounts/${account}/projects/default/tasks/`;
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const open = await transport.json<{ total: number | null; total_more_than?: number }>('GET', path, {
      query: { status: 'scheduled,queued,running,stopping', size: 1 },
    });
    if (open.total === 0) {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const failed = await transport.json<{ total: number | null; task_list: Array<{ reason?: string }> }>('GET', path, {
        query: { status: 'failed', size: 1 },
      });
      // A failed task makes the round meaningless: say why it failed.
      if (failed.task_list[0]) process.stdout.write(`  a failed task: ${JSON.stringify(failed.task_list[0]).slice(0, 600)}\n`);
      return { seconds, failed: failed.total ?? Number.NaN };
    }
    if (Date.now() > deadline) throw new Error(`tasks still open after ${TIMEOUT_MS / 60_000} minutes`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function round(side: Side, n: number, fresh: (name: string) => Promise<string[]>): Promise<Round> {
  const args = await fresh(`tes_${side === 'TES' ? 'tes' : 'gd'}_${n}_${process.pid}`);
  const server = await startGdflow(['--executor', EXECUTOR, '--call-caching', 'off', ...args]);
  try {
    const account = 'benchtes';
    const key = createAccount(server.dataDir, server.url, account, args);
    const transport = new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret }, retries: 0 });
    let one: (i: number) => Promise<unknown>;
    if (side === 'TES') {
      const authorization = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`;
      one = async (i) => {
        const body = JSON.stringify({ name: `t${i}`, executors: [{ image: 'alpine', command: ['true'] }] });
        const response = await fetch(`${server.url}/ga4gh/tes/v1/tasks`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body,
        });
        if (response.status !== 200) throw new Error(`TES create answered ${response.status}: ${await response.text()}`);
        await response.arrayBuffer();
      };
    } else {
      const client = new Client({ endpoint: server.url, accessKeyId: key.id, accessKeySecret: key.secret });
      const tool = await client.registerTool({
        name: 'benchtrue',
        cmd_template: 'true',
        inputs: {},
        outputs: {},
        requirements: { container: { image: 'alpine', type: 'docker' }, resources: { cpu: 1, mem: '64m', disk: '64m', network: false } },
      });
      await client.registerWorkflow('benchtrue_wf', {
        nodelist: [{ node_id: 'run', app_id: `/${account}/benchtrue/${tool.tool_version}`, inputs: {}, outputs: {} }],
      });
      const path = `/accounts/${account}/projects/default/tasks/`;
      one = (i) => transport.json('POST', path, { json: { workflow_name: 'benchtrue_wf', task_name: `task_${i}`, parameters: {} } });
    }
    const started = process.hrtime.bigint();
    const sending = await send(TASKS, CLIENTS, one);
    const ended = await untilAllEnded(transport, account, started);
    return { createdPerSecond: TASKS / sending, allEndedSeconds: ended.seconds, failed: ended.failed };
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const database = await benchDatabase();
  const results: Record<Side, Round[]> = { TES: [], ActivateWorkflow: [] };
  try {
    for (let n = 1; n <= ROUNDS; n++) {
      for (const side of (n % 2 === 1 ? ['TES', 'ActivateWorkflow'] : ['ActivateWorkflow', 'TES']) as Side[]) {
        const result = await round(side, n, (name) => database.fresh(name));
        results[side].push(result);
        process.stdout.write(
          `  round ${n}, ${side}: created ${result.createdPerSecond.toFixed(0)}/s, all ended after ${result.allEndedSeconds.toFixed(1)} s, ${result.failed} failed\n`,
        );
      }
    }
  } finally {
    await database.stop();
  }
  const created = (side: Side) => median(results[side].map((r) => r.createdPerSecond));
  const ended = (side: Side) => median(results[side].map((r) => r.allEndedSeconds));
  process.stdout.write(
    `\nbench:tes on ${machine()}, store ${database.name}, executor ${EXECUTOR}: ${TASKS} trivial tasks from ${CLIENTS} clients, ${ROUNDS} rounds, medians\n\n`,
  );
  process.stdout.write('| | created /s | all ended (s) |\n|---|---|---|\n');
  for (const side of ['TES', 'ActivateWorkflow'] as Side[]) process.stdout.write(`| ${side} | ${created(side).toFixed(0)} | ${ended(side).toFixed(1)} |\n`);
  const rate = created('TES') / created('ActivateWorkflow');
  const time = ended('ActivateWorkflow') / ended('TES');
  process.stdout.write(`| TES / ActivateWorkflow | ${rate.toFixed(2)}x | ${time.toFixed(2)}x (speed: the peer's time over TES's) |\n`);
  // The machine is shared: the two sides of one round ran minutes apart, so the paired ratios show how noisy it was.
  const paired = (f: (tes: Round, peer: Round) => number) => results.TES.map((tes, i) => f(tes, results.ActivateWorkflow[i]!).toFixed(2)).join(', ');
  process.stdout.write(
    `per-round ratios: creation ${paired((t, p) => t.createdPerSecond / p.createdPerSecond)}; completion ${paired((t, p) => p.allEndedSeconds / t.allEndedSeconds)}\n`,
  );
  process.stdout.write(`\ntarget (issue 25): >= 0.8x on both: creation ${rate >= 0.8 ? 'met' : 'NOT met'}, completion ${time >= 0.8 ? 'met' : 'NOT met'}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
