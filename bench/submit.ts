import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Client } from '../src/client/client.js';
import type { ActivateWorkflowRequest } from '../src/client/types.js';
import { benchDatabase } from './lib/database.js';
import { pool } from './lib/pool.js';
import { CLI, createAccount, machine, median, startGdflow } from './lib/processes.js';

/**
 * bench:submit — `gdflow batch` of ROWS rows against a local gdflow server (in its own process),
 * and, as the named peer, a plain loop of signed ActivateWorkflow POSTs through the SDK doing the
 * same submissions at the same concurrency without the CLI. Runs alternate (batch, loop, ...),
 * each on a fresh server; medians and the ratio are printed.
 *
 * The tasks are scheduled a day ahead so that the server does everything a submission costs
 * (signature check, workflow and template resolution, parameter validation, input existence,
 * plan, inserts) while no job runs and competes for the two cores; BENCH_RUN_TASKS=1 lets them run.
 */
const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const RUN_TASKS = process.env.BENCH_RUN_TASKS === '1';

const TOOL = {
  name: 'benchcopy',
  cmd_template: 'cp {{ inputs.reads[0].path }} {{ outputs.out[0].path }} # t={{ parameters.threads }}',
  inputs: { reads: { type: 'file', formats: ['fastq', 'fq'], required: true, minitems: 1, maxitems: 1 } },
  outputs: { out: { type: 'file', formats: 'fastq', required: true } },
  parameters: { threads: { type: 'integer', default: 1, minvalue: 1, maxvalue: 16 } },
  requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } },
};

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
  });
}

interface Setup {
  client: Client;
  configFile: string;
  sheet: string;
  samples: string[];
  stop: () => Promise<void>;
}

/**
 * A fresh server (its own process and data dir) with the tool, the workflow and ROWS input files:
 * every measurement starts from an empty project, so that neither submitter pays for the tasks
 * the other one left behind.
 */
async function setup(work: string, databaseArgs: string[] = []): Promise<Setup> {
  const server = await startGdflow(['--executor', 'host', ...databaseArgs]);
  const key = createAccount(server.dataDir, server.url, 'benchsubmit', databaseArgs);
  const client = new Client({ endpoint: server.url, accessKeyId: key.id, accessKeySecret: key.secret });
  const tool = await client.registerTool(TOOL);
  await client.registerWorkflow('benchwf', {
    nodelist: [
      { node_id: 'load_reads', app_id: 'loaddata', name: 'loaddata', outputs: { data: { enid: 'reads' } } },
      {
        node_id: 'copy',
        app_id: `/benchsubmit/benchcopy/${tool.tool_version}`,
        inputs: { reads: [{ enid: 'reads' }] },
        outputs: { out: [{ enid: 'copied' }] },
        parameters: { threads: { value: 1, variable: true } },
      },
      { node_id: 'save', app_id: 'storedata', name: 'storedata', inputs: { data: { enid: 'copied' } } },
    ],
  });
  const samples = Array.from({ length: ROWS }, (_, i) => `s${String(i + 1).padStart(5, '0')}`);
  await pool(samples, 8, async (sample) => void (await client.putData(`/bench/reads/${sample}.fastq`, Buffer.from(`@${sample}\nACGT\n+\nIIII\n`))));
  const configFile = join(work, 'config.yml');
  writeFileSync(
    configFile,
    stringify({ default_profile: 'bench', profiles: { bench: { endpoint: server.url, access_key_id: key.id, access_key_secret: key.secret } } }),
    { mode: 0o600 },
  );
  chmodSync(configFile, 0o600);
  const sheet = join(work, 'samples.tsv');
  writeFileSync(sheet, `sample\tread\tthreads\n${samples.map((s, i) => `${s}\t/bench/reads/${s}.fastq\t${(i % 4) + 1}`).join('\n')}\n`);
  return {
    client,
    configFile,
    sheet,
    samples,
    stop: async () => {
      await server.stop();
      rmSync(server.dataDir, { recursive: true, force: true });
    },
  };
}

/** ROWS signed ActivateWorkflow POSTs through the SDK at CONCURRENCY, on a fresh server; tasks per second. */
async function sdkLoop(work: string, at: string, databaseArgs: string[] = []): Promise<number> {
  const env = await setup(work, databaseArgs);
  try {
    const requests: ActivateWorkflowRequest[] = env.samples.map((s, i) => ({
      workflow_name: 'benchwf',
      task_name: `b_${s}`,
      parameters: {
        Inputs: { load_reads: { data: [{ name: `/bench/reads/${s}.fastq` }] } },
        Outputs: { save: { data: [{ name: `/bench/out/${s}.fastq` }] } },
        Parameters: { copy: { parameters: { threads: { value: (i % 4) + 1 } } } },
        Conditions: { schedule: at },
      },
    }));
    const client = env.client;
    const started = process.hrtime.bigint();
    await pool(requests, CONCURRENCY, async (request) => void (await client.activateWorkflow(request)));
    return ROWS / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    await env.stop();
  }
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'gdflow-bench-submit-'));
  const schedule = () => (RUN_TASKS ? '' : String(Math.floor(Date.now() / 1000) + 86_400));
  const cli: Array<{ submitRate: number; wallRate: number; seconds: number }> = [];
  const sdk: number[] = [];
  /** BENCH_DATABASE=postgres: the SDK loop on PostgreSQL too, in the same rounds (issue 12: >= 0.7x SQLite). */
  const onPostgres: number[] = [];
  const database = process.env.BENCH_DATABASE?.startsWith('postgres') ? await benchDatabase(process.env.BENCH_DATABASE) : undefined;
  let pgRound = 0;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // gdflow batch, as a user runs it: CLI start, validation (including one listing for the inputs), submission.
      const env = await setup(work);
      try {
        const template = join(work, `batch${round}.yml`);
        writeFileSync(
          template,
          stringify({
            name: 'b_{$sample}',
            Inputs: { load_reads: { data: [{ name: '{$read}' }] } },
            Outputs: { save: { data: [{ name: '/bench/out/{$sample}.fastq' }] } },
            Parameters: { copy: { parameters: { threads: { value: '{$threads}' } } } },
            Conditions: { schedule: schedule() },
          }),
        );
        const result = await runCli(
          ['batch', template, env.sheet, '--workflow', 'benchwf', '--concurrency', String(CONCURRENCY), '--log', join(work, `batch${round}.jsonl`), '--json'],
          { GDFLOW_CONFIG_FILE: env.configFile },
        );
        if (result.code !== 0) throw new Error(`gdflow batch exited ${result.code}: ${result.stderr}`);
        const outcome = JSON.parse(result.stdout) as { submitted: unknown[]; tasks_per_second: number };
        if (outcome.submitted.length !== ROWS) throw new Error(`gdflow batch submitted ${outcome.submitted.length} of ${ROWS}`);
        cli.push({ submitRate: outcome.tasks_per_second, wallRate: ROWS / result.seconds, seconds: result.seconds });
        process.stdout.write(
          `  round ${round} gdflow batch: ${outcome.tasks_per_second.toFixed(1)} tasks/s submitting, ${(ROWS / result.seconds).toFixed(1)} tasks/s end to end (${result.seconds.toFixed(2)} s)\n`,
        );
      } finally {
        await env.stop();
      }

      // The peer: the same submissions as a plain loop of signed POSTs through the SDK.
      const loop = await sdkLoop(work, schedule());
      sdk.push(loop);
      process.stdout.write(`  round ${round} SDK loop:     ${loop.toFixed(1)} tasks/s\n`);
      if (database) {
        // Each round on a database of its own, as each SQLite round has a data root of its own.
        const rate = await sdkLoop(work, schedule(), await database.fresh(`submit_${++pgRound}`));
        onPostgres.push(rate);
        process.stdout.write(`  round ${round} SDK loop on PostgreSQL: ${rate.toFixed(1)} tasks/s\n`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    await database?.stop();
  }

  const batchRate = median(cli.map((c) => c.submitRate));
  const wallRate = median(cli.map((c) => c.wallRate));
  const loopRate = median(sdk);
  process.stdout.write(
    `\nbench:submit on ${machine()}; ${ROWS} rows, concurrency ${CONCURRENCY}, ${ROUNDS} rounds, each on a fresh server, medians${RUN_TASKS ? '' : ', tasks scheduled a day ahead'}\n`,
  );
  process.stdout.write('| submitter | tasks/s | ratio to SDK loop |\n|---|---|---|\n');
  process.stdout.write(`| gdflow batch (submission phase) | ${batchRate.toFixed(1)} | ${(batchRate / loopRate).toFixed(2)}x |\n`);
  process.stdout.write(`| gdflow batch (end to end: start, validate, submit, exit) | ${wallRate.toFixed(1)} | ${(wallRate / loopRate).toFixed(2)}x |\n`);
  process.stdout.write(`| SDK loop of signed POSTs (peer) | ${loopRate.toFixed(1)} | 1.00x |\n`);
  if (onPostgres.length > 0) {
    const pgRate = median(onPostgres);
    process.stdout.write(
      `| SDK loop on PostgreSQL | ${pgRate.toFixed(1)} | ${(pgRate / loopRate).toFixed(2)}x (PostgreSQL / SQLite; per round: ${onPostgres.map((r, i) => `${(r / sdk[i]!).toFixed(2)}x`).join(', ')}) |\n`,
    );
  }
  process.stdout.write(`\ntarget >= 100 tasks/s: ${wallRate >= 100 ? 'met' : 'NOT met'} (end to end ${wallRate.toFixed(1)} tasks/s)\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
