import { readFileSync, rmSync } from 'node:fs';
import { Client } from '../src/client/client.js';
import type { ActivateWorkflowRequest } from '../src/client/types.js';
import { copyWorkflow } from './lib/copy-workflow.js';
import { benchDatabase } from './lib/database.js';
import { pool, quantile } from './lib/pool.js';
import { createAccount, machine, startGdflow } from './lib/processes.js';

/**
 * bench:scale — a backlog of queued tasks, as a team that submits faster than it computes has (issue 12):
 * 1. ActivateWorkflow from 32 concurrent clients until BENCH_TASKS (50,000) tasks are queued, through an API replica
 *    (role api: nothing runs them meanwhile); the rate and latency over the last tenth, when the backlog is largest.
 * 2. The task list over that backlog: every page of 100 by keyset cursor, and pages at random offsets; latencies.
 * 3. A worker (role worker, 2 CPU slots) started on that backlog: its resident memory while it works through it
 *    (it holds in memory only the tasks it has claimed), and how many tasks it finishes per second.
 * Targets (issue 12): activation >= 300/s, any page <= 50 ms at p99, worker RSS < 200 MB.
 * BENCH_DATABASE=postgres runs it on a PostgreSQL it starts itself.
 */
const TASKS = Number(process.env.BENCH_TASKS ?? 50_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const WORKER_SECONDS = Number(process.env.BENCH_WORKER_SECONDS ?? 30);
const PAGE = 100;

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

const ms = (values: number[]) =>
  `p50 ${quantile(values, 0.5).toFixed(1)} ms, p99 ${quantile(values, 0.99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return [value, Number(process.hrtime.bigint() - started) / 1e6];
}

async function main() {
  const database = await benchDatabase();
  const api = await startGdflow(['--role', 'api', ...database.args]);
  let worker: Awaited<ReturnType<typeof startGdflow>> | undefined;
  try {
    const key = createAccount(api.dataDir, api.url, 'benchscale', database.args);
    const client = new Client({ endpoint: api.url, accessKeyId: key.id, accessKeySecret: key.secret });
    const { workflow, input } = await copyWorkflow(client, 'benchscale', 'scale');
    const request = (i: number): ActivateWorkflowRequest => ({
      workflow_name: workflow,
      task_name: `t${String(i).padStart(6, '0')}`,
      parameters: { Inputs: { load: { data: [{ name: input }] } }, Outputs: { save: { data: [{ name: `/scale/out/${i}.fastq` }] } } },
    });

    // 1. The backlog.
    process.stdout.write(`bench:scale on ${machine()}, store ${database.name}: queueing ${TASKS} tasks from ${CLIENTS} clients...\n`);
    const latencies: Array<{ at: number; ms: number }> = [];
    const fillStart = process.hrtime.bigint();
    await pool(
      Array.from({ length: TASKS }, (_, i) => i),
      CLIENTS,
      async (i) => {
        const [, took] = await timed(() => client.activateWorkflow(request(i)));
        latencies.push({ at: Number(process.hrtime.bigint() - fillStart) / 1e9, ms: took });
        if (latencies.length % 10_000 === 0) process.stdout.write(`  ${latencies.length} queued\n`);
      },
    );
    const fillSeconds = Number(process.hrtime.bigint() - fillStart) / 1e9;
    const lastTenth = latencies.slice(Math.floor(TASKS * 0.9));
    const lastRate = lastTenth.length / (lastTenth[lastTenth.length - 1]!.at - lastTenth[0]!.at);

    // 2. Paging through it: every page by cursor right after the fill (while the database may still be catching up
    // with it: PostgreSQL's autovacuum), pages at random offsets, the oldest page, and every page by cursor again.
    const walk = async (): Promise<number[]> => {
      const took: number[] = [];
      for (let cursor: string | undefined; ;) {
        const [page, ms] = await timed(() => client.listTasks({ size: PAGE, ...(cursor ? { cursor } : {}) }));
        took.push(ms);
        if (!page.next_cursor) return took;
        cursor = page.next_cursor;
      }
    };
    const keyset = await walk();
    const offsets: number[] = [];
    for (let i = 0; i < 200; i++) {
      const offset = Math.floor(Math.random() * (TASKS - PAGE));
      offsets.push((await timed(() => client.listTasks({ size: PAGE, offset })))[1]);
    }
    const oldest: number[] = [];
    for (let i = 0; i < 50; i++) oldest.push((await timed(() => client.listTasks({ size: PAGE, offset: TASKS - PAGE })))[1]);
    const keysetAgain = await walk();

    // 3. A worker on the backlog.
    worker = await startGdflow(['--role', 'worker', '--cpus', '2', '--executor', 'host', ...database.args], api.dataDir);
    const rss: number[] = [];
    const workStart = Date.now();
    while (Date.now() - workStart < WORKER_SECONDS * 1000) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rss.push(rssMb(worker.pid));
    }
    const health = (await (await fetch(`${worker.url}/healthz`)).json()) as { tasks: number };
    let succeeded = 0;
    for (let cursor: string | undefined; ;) {
      const page = await client.listTasks({ size: 1000, ...(cursor ? { cursor } : {}) });
      succeeded += page.task_list.filter((t) => t.status === 'succeeded').length;
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }

    process.stdout.write(`\n| measure | value | target |\n|---|---|---|\n`);
    process.stdout.write(`| ActivateWorkflow, ${CLIENTS} clients, whole fill (0 → ${TASKS} queued) | ${(TASKS / fillSeconds).toFixed(0)}/s | |\n`);
    process.stdout.write(
      `| ActivateWorkflow, last tenth (${Math.floor(TASKS * 0.9)} → ${TASKS} queued) | ${lastRate.toFixed(0)}/s; ${ms(lastTenth.map((l) => l.ms))} | >= 300/s |\n`,
    );
    process.stdout.write(`| task list, all ${keyset.length} pages of ${PAGE} by cursor, right after the fill | ${ms(keyset)} | p99 <= 50 ms |\n`);
    process.stdout.write(`| task list, 200 pages at random offsets | ${ms(offsets)} | p99 <= 50 ms |\n`);
    process.stdout.write(`| task list, the oldest page by offset (50 times) | ${ms(oldest)} | p99 <= 50 ms |\n`);
    process.stdout.write(`| task list, all pages by cursor again | ${ms(keysetAgain)} | p99 <= 50 ms |\n`);
    process.stdout.write(
      `| worker RSS over ${WORKER_SECONDS} s on the backlog (holding ${health.tasks} tasks at the end) | max ${Math.max(...rss).toFixed(0)} MB, last ${rss[rss.length - 1]!.toFixed(0)} MB | < 200 MB |\n`,
    );
    process.stdout.write(`| worker throughput on the backlog | ${(succeeded / WORKER_SECONDS).toFixed(1)} tasks/s (${succeeded} succeeded) | |\n`);
  } finally {
    await worker?.stop();
    await api.stop();
    rmSync(api.dataDir, { recursive: true, force: true });
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
