import { readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from '../src/client/client.js';
import { discoverCgroupV1, JOBS_GROUP } from '../src/engine/executors/process/tracking/cgroup.js';
import { authorizationHeader, signRequest } from '../src/signing/index.js';
import { LagProbe } from './lib/lag-probe.js';
import { descendantsByName, machineLimits } from './lib/process-table.js';
import { cpuSeconds, createAccount, machine, startGdflow, stopChild, type ServerProcess } from './lib/processes.js';

/**
 * bench:load — is the API still responsive while many jobs run at once? A gdflow server (its own process,
 * `--cpus` and `--memory` large enough for every job) runs JOBS tasks of a one-node workflow whose job is
 * `sleep 3600` (BENCH_COMMAND). GetTool latency is measured at a modest, fixed rate (autocannon, `RATE` requests per second
 * over `CONNECTIONS` connections) in four phases of the same server:
 *
 * - idle: before any task (the peer: the same server with 0 jobs);
 * - starting: the first SECONDS after the first submission, while the tasks are submitted and their jobs start;
 * - running: when JOBS commands run (counted in /proc as the server's descendants, so a job counts once its
 *   process has really started, not when the engine marked it running);
 * - ending: every job ends at once (BENCH_END=kill: the bench SIGTERMs all the commands, so each job's
 *   command exits and the server sweeps, reports and records it; BENCH_END=stop: StopTask for every task,
 *   so the server kills every job's tree itself); the window starts a second before;
 * - idle after: when every task has ended.
 *
 * For each executor in BENCH_EXECUTORS (default host,bwrap), each on a fresh server.
 */
const JOBS = Number(process.env.BENCH_JOBS ?? 1000);
const EXECUTORS = (process.env.BENCH_EXECUTORS ?? 'host,bwrap').split(',').filter(Boolean) as Array<'host' | 'bwrap'>;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const END: 'kill' | 'stop' = process.env.BENCH_END === 'stop' ? 'stop' : 'kill';
/**
 * The job's command (BENCH_COMMAND, default `sleep 3600`) and the name its process has in /proc (BENCH_COMM,
 * default `sleep`): e.g. BENCH_COMMAND='while :; do :; done' BENCH_COMM=sh for jobs that keep a core busy.
 */
const COMMAND = process.env.BENCH_COMMAND ?? 'sleep 3600';
const COMM = process.env.BENCH_COMM ?? 'sleep';
/** How long to wait for all jobs to run (or, after the end, for all to be gone) before measuring what there is. */
const WAIT_SECONDS = Number(process.env.BENCH_WAIT ?? 900);
const ACCOUNT = 'loadbench';
/**
 * BENCH_SHAPE: `tasks` (default), JOBS tasks of a one-node workflow; `jobs`, one task of a JOBS-node workflow (every
 * node the same command, none waiting for another).
 */
const SHAPE: 'tasks' | 'jobs' = process.env.BENCH_SHAPE === 'jobs' ? 'jobs' : 'tasks';

interface Window {
  phase: string;
  /** Job commands running when the window began and when it ended. */
  jobsBefore: number;
  jobsAfter: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  /** Share of one core the server used during the window. */
  serverCpu: number;
  /** Share of one core the whole machine used during the window (all processes, steal excluded): 200% is all. */
  machineCpu: number;
  /** How late an idle bystander process's 1 ms timer was (lag-probe.ts): what the machine adds. */
  bystander: { p99: number; max: number };
}

/** CPU seconds (all cores: user, nice, system, irq, softirq; not steal) the whole machine has used so far. */
function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
  return (user + nice + system + irq + softirq) / 100;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** The job processes of the server: its descendants except the launcher (`sleep`, and bwrap's two per sandbox). */
function jobProcesses(server: ServerProcess): { commands: number[]; pids: number[] } {
  const byName = descendantsByName(server.pid);
  const pids: number[] = [];
  for (const [name, list] of byName) if (name !== 'gdflow-spawn' && name !== 'node') pids.push(...list);
  return { commands: byName.get(COMM) ?? [], pids };
}

/** Whether a process (or its zombie) still exists. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function measure(server: ServerProcess, probe: LagProbe, request: autocannon.Request, phase: string, during?: () => Promise<void>): Promise<Window> {
  const jobsBefore = jobProcesses(server).commands.length;
  await probe.report(); // starts the bystander's window
  const cpuBefore = cpuSeconds(server.pid);
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  const running = autocannon({ url: server.url, connections: CONNECTIONS, overallRate: RATE, duration: SECONDS, requests: [request] });
  await during?.();
  const result = await running;
  const seconds = (performance.now() - started) / 1000;
  const serverCpu = (cpuSeconds(server.pid) - cpuBefore) / seconds;
  const machineCpu = (machineBusySeconds() - machineBefore) / seconds;
  const bystander = await probe.report();
  const window: Window = {
    phase,
    jobsBefore,
    jobsAfter: jobProcesses(server).commands.length,
    requests: result.requests.total,
    errors: result.errors + result.non2xx + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    serverCpu,
    machineCpu,
    bystander,
  };
  process.stdout.write(
    `  ${phase.padEnd(10)} ${window.jobsBefore} -> ${window.jobsAfter} jobs: ${window.requests} GetTool, p50 ${window.p50} ms, p99 ${window.p99} ms, ` +
      `max ${window.max} ms, errors ${window.errors}, server CPU ${(serverCpu * 100).toFixed(0)}%, machine ${(machineCpu * 100).toFixed(0)}%; bystander timer late p99 ${bystander.p99.toFixed(1)} ms, max ${bystander.max.toFixed(1)} ms\n`,
  );
  return window;
}

/** Removes the cgroups a server killed before it could clean up left behind for this run's jobs. */
async function removeLeftoverCgroups(taskIds: string[]): Promise<void> {
  const found = await discoverCgroupV1();
  for (const server of [found.memory?.base, found.cpu?.base]) {
    if (!server) continue;
    const base = join(server, JOBS_GROUP);
    let names: string[];
    try {
      names = readdirSync(base);
    } catch {
      continue; // no job group left
    }
    for (const name of names) {
      if (!name.startsWith('gdflow-') || !taskIds.some((id) => name.startsWith(`gdflow-${id}`))) continue;
      try {
        rmdirSync(join(base, name));
      } catch {
        // still in use, or gone
      }
    }
  }
}

async function stopServer(server: ServerProcess): Promise<number> {
  const started = performance.now();
  const stopped = stopChild(server.child);
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 120_000);
  await stopped;
  clearTimeout(timer);
  return (performance.now() - started) / 1000;
}

async function run(
  executor: 'host' | 'bwrap',
  probe: LagProbe,
): Promise<{ windows: Window[]; startSeconds: number; endSeconds: number; peak: number; stopSeconds: number }> {
  process.stdout.write(`${executor}: starting a server for ${JOBS} jobs\n`);
  const server = await startGdflow(['--executor', executor, '--cpus', String(JOBS), '--memory', `${JOBS * 64 + 1024}m`]);
  const taskIds: string[] = [];
  try {
    const key = createAccount(server.dataDir, server.url, ACCOUNT);
    const client = new Client({ endpoint: server.url, accessKeyId: key.id, accessKeySecret: key.secret });
    const tool = await client.registerTool({
      name: 'sleeper',
      cmd_template: COMMAND,
      inputs: {},
      outputs: {},
      requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '64m', network: false } },
    });
    const nodes = SHAPE === 'jobs' ? JOBS : 1;
    const workflow = await client.registerWorkflow('sleepers', {
      nodelist: Array.from({ length: nodes }, (_, i) => ({
        node_id: `sleep${i}`,
        app_id: `/${ACCOUNT}/sleeper/${tool.tool_version}`,
        inputs: {},
        outputs: {},
      })),
    });
    const tasks = SHAPE === 'jobs' ? 1 : JOBS;

    const target = `/accounts/${ACCOUNT}/projects/default/tools/sleeper/?tool_version=${tool.tool_version}`;
    // A fresh Date for each phase: the server allows 15 minutes of skew.
    const signed = (): autocannon.Request => {
      const d = new Date().toUTCString();
      return {
        method: 'GET',
        path: target,
        headers: { Date: d, Authorization: authorizationHeader(key.id, signRequest(key.secret, { method: 'GET', target, headers: { Date: d } })) },
      };
    };
    const check = await fetch(server.url + target, { headers: signed().headers as Record<string, string> });
    if (check.status !== 200) throw new Error(`GetTool answered ${check.status}: ${await check.text()}`);

    const windows: Window[] = [];
    const count = () => jobProcesses(server).commands.length;
    // Warm up (JIT, caches) unrecorded, then the idle peer.
    await autocannon({ url: server.url, connections: CONNECTIONS, overallRate: RATE, duration: 2, requests: [signed()] });
    windows.push(await measure(server, probe, signed(), 'idle'));

    // Start the tasks; count the commands until all run. GetTool is measured from the first submission on.
    const starting = measure(server, probe, signed(), 'starting');
    const startedAt = performance.now();
    let submitted = 0;
    // A failed submission (a server too busy to answer within the client's timeout, say) ends the wait and the
    // run, through the clean-up below.
    let submitError: Error | undefined;
    /** Set when the wait is over: the tasks not yet submitted are not (a slow server may never run them all). */
    let giveUp = false;
    const submitting = pool(
      Array.from({ length: tasks }, (_, i) => i),
      8,
      async (i) => {
        if (giveUp) return;
        const task = await client.activateWorkflow({
          workflow_name: workflow.workflow_name,
          workflow_version: workflow.workflow_version,
          task_name: `load-${i}`,
          parameters: {},
        });
        taskIds.push(task.task_id);
        submitted++;
      },
    ).catch((error: unknown) => {
      submitError = new Error('submitting the tasks failed', { cause: error });
    });
    let running = 0;
    let lastReport = 0;
    for (;;) {
      running = count();
      const elapsed = (performance.now() - startedAt) / 1000;
      if (running >= JOBS || elapsed > WAIT_SECONDS || submitError) break;
      if (elapsed - lastReport >= 10) {
        process.stdout.write(`  ${elapsed.toFixed(0)} s: ${submitted} tasks submitted, ${running} commands running\n`);
        lastReport = elapsed;
      }
      await sleep(500);
    }
    giveUp = true;
    await submitting;
    windows.push(await starting);
    if (submitError) throw submitError;
    const startSeconds = (performance.now() - startedAt) / 1000;
    process.stdout.write(`  ${running} of ${JOBS} jobs running ${startSeconds.toFixed(1)} s after the first submission\n`);
    await sleep(3000); // let the engine finish what the submissions started
    windows.push(await measure(server, probe, signed(), 'running'));

    // Every job ends at once. Whether the job processes listed now are gone is then checked with kill(pid, 0),
    // which costs far less than a scan of /proc (that would compete with the server for the two cores).
    let endSeconds = NaN;
    const procs = jobProcesses(server);
    const peak = procs.commands.length;
    windows.push(
      await measure(server, probe, signed(), 'ending', async () => {
        await sleep(1000);
        const endAt = performance.now();
        if (END === 'kill') {
          for (const pid of procs.commands) {
            try {
              process.kill(pid, 'SIGTERM');
            } catch {
              // gone
            }
          }
        } else {
          await pool([...taskIds], 16, async (id) => void (await client.stopTask(id)));
        }
        let left = procs.pids;
        while (left.length > 0 && (performance.now() - endAt) / 1000 < WAIT_SECONDS) {
          await sleep(50);
          left = left.filter(exists);
        }
        endSeconds = (performance.now() - endAt) / 1000;
      }),
    );
    process.stdout.write(`  every job process gone ${endSeconds.toFixed(1)} s after the ${END === 'kill' ? 'SIGTERMs' : 'first StopTask'}\n`);
    // Wait for the server to record every end, then measure it idle again.
    const statuses = new Map<string, number>();
    for (const deadline = performance.now() + WAIT_SECONDS * 1000; performance.now() < deadline; await sleep(1000)) {
      statuses.clear();
      for (let offset = 0; offset < taskIds.length; offset += 1000) {
        const list = await client.listTasks({ size: 1000, offset });
        for (const task of list.task_list) statuses.set(task.status, (statuses.get(task.status) ?? 0) + 1);
      }
      if (![...statuses.keys()].some((s) => ['queued', 'running', 'stopping', 'scheduled'].includes(s))) break;
    }
    process.stdout.write(`  task states: ${[...statuses].map(([s, n]) => `${n} ${s}`).join(', ')}\n`);
    windows.push(await measure(server, probe, signed(), 'idle after'));
    const stopSeconds = await stopServer(server);
    return { windows, startSeconds, endSeconds, peak, stopSeconds };
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) await stopServer(server);
    await removeLeftoverCgroups(taskIds);
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

async function main() {
  process.stdout.write(
    `bench:load: ${JOBS} jobs of ${COMMAND} (${SHAPE === 'jobs' ? 'one task' : 'one task each'}), executors ${EXECUTORS.join(', ')}; GetTool at ${RATE} req/s over ${CONNECTIONS} connections, ${SECONDS} s per phase; end by ${END}\n`,
  );
  process.stdout.write(`limits: ${machineLimits()}\n`);
  const results: Array<{ executor: string } & Awaited<ReturnType<typeof run>>> = [];
  const probe = new LagProbe();
  try {
    for (const executor of EXECUTORS) results.push({ executor, ...(await run(executor, probe)) });
  } finally {
    probe.close();
  }

  process.stdout.write(
    `\nbench:load on ${machine()}; ${JOBS} jobs; GetTool at ${RATE} req/s, ${CONNECTIONS} connections, ${SECONDS} s per phase; end by ${END}\n`,
  );
  process.stdout.write(
    '| executor | phase | jobs running (start → end) | GetTool requests | errors | p50 ms | p99 ms | max ms | p99 / idle p99 | server CPU | machine CPU (of 200%) | bystander timer late, p99 / max ms |\n' +
      '|---|---|---|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const r of results) {
    const idle = r.windows[0]!;
    for (const w of r.windows) {
      const ratio = idle.p99 > 0 ? `${(w.p99 / idle.p99).toFixed(1)}x` : 'n/a';
      process.stdout.write(
        `| ${r.executor} | ${w.phase} | ${w.jobsBefore} → ${w.jobsAfter} | ${w.requests} | ${w.errors} | ${w.p50} | ${w.p99} | ${w.max} | ${ratio} | ` +
          `${(w.serverCpu * 100).toFixed(0)}% | ${(w.machineCpu * 100).toFixed(0)}% | ${w.bystander.p99.toFixed(1)} / ${w.bystander.max.toFixed(1)} |\n`,
      );
    }
  }
  for (const r of results) {
    process.stdout.write(
      `${r.executor}: ${r.peak} jobs running ${r.startSeconds.toFixed(1)} s after the first submission; ` +
        `all job processes gone ${r.endSeconds.toFixed(1)} s after the end began; server stopped in ${r.stopSeconds.toFixed(1)} s\n`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
