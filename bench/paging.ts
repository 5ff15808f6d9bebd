import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '../src/client/client.js';
import { authorizationHeader, signRequest } from '../src/signing/index.js';
import { copyWorkflow } from './lib/copy-workflow.js';
import { benchDatabase, type BenchDatabase } from './lib/database.js';
import { pool, quantile } from './lib/pool.js';
import { CLI, createAccount, machine, startGdflow, stopChild, type ServerProcess } from './lib/processes.js';

/**
 * bench:paging — task-list pages over 50,000 tasks (issue 22, "Under load"): the unfiltered page, and pages filtered
 * by state (status=) and by a part of the name (name=), on SQLite and on PostgreSQL.
 *
 * Per store: an API replica (role api: nothing runs) gets BENCH_TASKS tasks from 32 concurrent clients, named
 * sample_<i>_L<lane>; 1 in 25 is then stopped (PUT), 1 in 50 is queued (no start time), the rest are scheduled a day
 * ahead: 94% scheduled, 4% stopped, 2% queued. Then each case below walks its pages by cursor (size 100), from its
 * first page to its 20th or its end and again, the cases taking turns, BENCH_SAMPLES pages each, one request at a
 * time, every one signed and timed from send to the last byte of the answer.
 *
 * Peers: the unfiltered page of the same store in the same run (the ratios), and a bare node:http server answering
 * the same request targets with the bytes gdflow answered (bench/lib/bare-server.ts): the floor of the HTTP round trip.
 * BENCH_BASELINE=<a built gdflow checkout> also runs that build (its own fill) in the same way, for before/after.
 * BENCH_STORES=sqlite,postgres (default both); PostgreSQL is a throwaway cluster started here (bench/lib/database.ts).
 */
const TASKS = Number(process.env.BENCH_TASKS ?? 50_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const CLIENTS = 32;
const PAGE = 100;
const PAGES_PER_WALK = 20;
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
const BASELINE = process.env.BENCH_BASELINE ? join(resolve(process.env.BENCH_BASELINE), 'dist', 'src', 'cli', 'main.js') : undefined;

/** The pages measured: a label and the query of the list. */
const CASES: Array<[string, Record<string, string>]> = [
  ['unfiltered', {}],
  ['status=stopped (4%)', { status: 'stopped' }],
  ['status=queued (2%)', { status: 'queued' }],
  ['status=scheduled (94%)', { status: 'scheduled' }],
  ['status=queued,stopped', { status: 'queued,stopped' }],
  ['name=sample_01234_ (1 task)', { name: 'sample_01234_' }],
  ['name=_L3 (1 in 8)', { name: '_L3' }],
  ['name=sample (every task)', { name: 'sample' }],
  ['name=zzz (none)', { name: 'zzz' }],
  ['status=stopped&name=_L3', { status: 'stopped', name: '_L3' }],
];

interface Filled {
  server: ServerProcess;
  key: { id: string; secret: string };
  project: string;
}

/** A server of `cli` on `database` with TASKS tasks in the states and names above. */
async function filled(label: string, database: BenchDatabase, cli: string): Promise<Filled> {
  const args = await database.fresh(`paging_${label.replace(/\W/g, '_')}_${process.pid}`);
  const server = await startGdflow(['--role', 'api', ...args], undefined, cli);
  const key = createAccount(server.dataDir, server.url, 'benchpaging', args, cli);
  const client = new Client({ endpoint: server.url, accessKeyId: key.id, accessKeySecret: key.secret });
  const { workflow, input } = await copyWorkflow(client, 'benchpaging', 'paging');
  const tomorrow = Math.floor(Date.now() / 1000) + 86_400;
  process.stdout.write(`  ${label}: queueing ${TASKS} tasks from ${CLIENTS} clients...\n`);
  const started = Date.now();
  const stopped: string[] = [];
  await pool(
    Array.from({ length: TASKS }, (_, i) => i),
    CLIENTS,
    async (i) => {
      const { task_id } = await client.activateWorkflow({
        workflow_name: workflow,
        task_name: `sample_${String(i).padStart(5, '0')}_L${i % 8}`,
        parameters: {
          Inputs: { load: { data: [{ name: input }] } },
          Outputs: { save: { data: [{ name: `/paging/out/${i}.fastq` }] } },
          Conditions: { schedule: i % 50 === 1 ? '' : String(tomorrow) },
        },
      });
      if (i % 25 === 0) stopped.push(task_id);
    },
  );
  await pool(stopped, CLIENTS, async (id) => {
    await client.stopTask(id);
  });
  process.stdout.write(`  ${label}: ${TASKS} tasks in ${((Date.now() - started) / 1000).toFixed(0)} s (${stopped.length} stopped)\n`);
  return { server, key, project: '/accounts/benchpaging/projects/default/tasks/' };
}

interface Walked {
  /** Milliseconds per page request, per case. */
  ms: Map<string, number[]>;
  /** The total of each case's first page (null past the count limit). */
  totals: Map<string, number | null>;
  /** Every request target sent, with the answer, for the bare server to replay. */
  answers: Record<string, { status: number; body: string; type: string }>;
  /** The targets in the order they were sent, per case. */
  targets: Map<string, string[]>;
}

/** Walk every case's pages by cursor, the cases taking turns, SAMPLES requests each. */
async function walk(base: string, target: (path: string) => string, headers: (target: string) => Record<string, string>, replay?: Walked): Promise<Walked> {
  const walked: Walked = { ms: new Map(), totals: new Map(), answers: {}, targets: new Map() };
  type Walk = { cursor: string | undefined; pages: number; sent: number };
  const state = new Map<string, Walk>(CASES.map(([label]) => [label, { cursor: undefined, pages: 0, sent: 0 }]));
  for (let round = 0; round < SAMPLES; round++) {
    for (const [label, query] of CASES) {
      const s = state.get(label)!;
      let path: string;
      if (replay) {
        path = replay.targets.get(label)![s.sent]!;
      } else {
        const params = new URLSearchParams({ size: String(PAGE), ...query, ...(s.cursor ? { cursor: s.cursor } : {}) });
        path = target(params.toString());
      }
      s.sent++;
      const requestHeaders = headers(path);
      const began = process.hrtime.bigint();
      const response = await fetch(base + path, { headers: requestHeaders });
      const body = await response.text();
      const took = Number(process.hrtime.bigint() - began) / 1e6;
      if (response.status !== 200) throw new Error(`${label}: ${response.status} ${body.slice(0, 300)}`);
      (walked.ms.get(label) ?? walked.ms.set(label, []).get(label)!).push(took);
      (walked.targets.get(label) ?? walked.targets.set(label, []).get(label)!).push(path);
      if (replay) continue;
      walked.answers[path] = { status: 200, body, type: response.headers.get('content-type') ?? 'application/json' };
      const page = JSON.parse(body) as { total: number | null; next_cursor?: string | null };
      if (s.pages === 0 && !walked.totals.has(label)) walked.totals.set(label, page.total);
      s.pages++;
      // The walk starts over at the end of the list, or after PAGES_PER_WALK pages.
      s.cursor = page.next_cursor && s.pages < PAGES_PER_WALK ? page.next_cursor : undefined;
      if (s.cursor === undefined) s.pages = 0;
    }
  }
  return walked;
}

/** The bare node:http peer, answering the recorded targets. */
async function bareServer(answers: Walked['answers'], dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const file = join(dir, 'recorded-pages.json');
  writeFileSync(file, JSON.stringify(answers));
  const child = spawn(process.execPath, [join(import.meta.dirname, 'lib', 'bare-server.js'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((done) => child.stdout.once('data', (d: Buffer) => done(/listening on (\S+)/.exec(d.toString())![1]!)));
  return { url, stop: () => stopChild(child) };
}

const fmt = (v: number) => v.toFixed(1);

function report(title: string, walked: Walked, bare: Walked | undefined): void {
  const unfiltered = walked.ms.get('unfiltered')!;
  const [u50, u99] = [quantile(unfiltered, 0.5), quantile(unfiltered, 0.99)];
  const columns = ['total', 'p50 ms', 'p99 ms', 'max ms', 'p50 / unfiltered', 'p99 / unfiltered', 'bare node:http p50 / p99 ms'];
  process.stdout.write(`\n${title}\n\n| page (size ${PAGE}, by cursor) | ${columns.join(' | ')} |\n|---${'|---'.repeat(columns.length)}|\n`);
  for (const [label] of CASES) {
    const ms = walked.ms.get(label)!;
    const [p50, p99] = [quantile(ms, 0.5), quantile(ms, 0.99)];
    const peer = bare?.ms.get(label);
    const total = walked.totals.get(label);
    const cells = [
      total === null ? '> 1000' : String(total),
      fmt(p50),
      fmt(p99),
      fmt(Math.max(...ms)),
      `${(p50 / u50).toFixed(2)}x`,
      `${(p99 / u99).toFixed(2)}x`,
      peer ? `${fmt(quantile(peer, 0.5))} / ${fmt(quantile(peer, 0.99))}` : '',
    ];
    process.stdout.write(`| ${label} | ${cells.join(' | ')} |\n`);
  }
}

async function measure(store: string, build: 'this build' | 'baseline', cli: string): Promise<void> {
  const database = await benchDatabase(store);
  const label = `${store}, ${build}`;
  const { server, key, project } = await filled(label, database, cli);
  try {
    const headers = (target: string) => {
      const date = new Date().toUTCString();
      return { Date: date, Authorization: authorizationHeader(key.id, signRequest(key.secret, { method: 'GET', target, headers: { Date: date } })) };
    };
    const walked = await walk(server.url, (query) => `${project}?${query}`, headers);
    const bare = await bareServer(walked.answers, server.dataDir);
    let replayed: Walked | undefined;
    try {
      replayed = await walk(
        bare.url,
        (query) => query,
        () => ({}),
        walked,
      );
    } finally {
      await bare.stop();
    }
    report(`bench:paging on ${machine()}, store ${store}, ${build}: ${TASKS} tasks, ${SAMPLES} pages per case`, walked, replayed);
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
    await database.stop();
  }
}

async function main() {
  for (const store of STORES) {
    await measure(store, 'this build', CLI);
    if (BASELINE) await measure(store, 'baseline', BASELINE);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
