import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Transport } from '../client/transport.js';
import type { Config } from '../config/config.js';
import type { RunTemplate } from '../domain/workflows/run-template.js';
import { startServer } from '../server/start.js';
import { packageRoot } from '../package-root.js';
import { DEMO_IMAGE, DEMO_TOOLS, toolDocument, workflowDocument } from './documents.js';
import { demoSample } from './sample.js';
import { demoKey, registerTool, registerWorkflow, type DemoProject, type Registered } from './register.js';

/**
 * `gdflow demo`: the whole product on one machine, through its real HTTP API. It starts an
 * embedded server, makes an account, registers four real tools and a workflow, simulates a
 * sample, runs fastp → bwa mem → samtools sort/index → samtools flagstat as a task, follows it,
 * and summarises the results read back from the data store.
 *
 * With `--executor podman` (or docker) the tools run in containers of the demo image, which the
 * demo builds first when it is missing (scripts/images/build-demo.sh); the host then needs only
 * the container runtime and wgsim (in Debian's samtools package) to simulate the reads.
 */

const ACCOUNT = 'demo';

export interface DemoOptions {
  reads: number;
  say: (line: string) => void;
}

const inContainers = (config: Config) =>
  config.executor === 'podman' || config.executor === 'docker' || (config.executor === 'slurm' && config.slurmWrap === 'podman');

/** The commands the demo needs on the host: the tools themselves unless they run in the demo image. */
function missingCommands(config: Config): string[] {
  const sandboxed = config.executor === 'bwrap' || (config.executor === 'slurm' && config.slurmWrap === 'bwrap');
  const required = inContainers(config) ? ['wgsim'] : ['samtools', 'bwa', 'fastp', 'wgsim', ...(sandboxed ? ['bwrap'] : [])];
  return required.filter((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0);
}

/** The demo image for the configured container runtime, built when it is not there yet. */
function ensureDemoImage(config: Config, say: (line: string) => void): void {
  const runtime = config.containerRuntime || (config.executor === 'slurm' ? 'podman' : config.executor);
  if (spawnSync(runtime, ['image', 'inspect', DEMO_IMAGE], { stdio: 'ignore' }).status === 0) return;
  say(`building the demo image ${DEMO_IMAGE} (Debian minbase with fastp, bwa and samtools; about a minute) ...`);
  const built = spawnSync(join(packageRoot(), 'scripts', 'images', 'build-demo.sh'), [], {
    env: { ...process.env, CONTAINER_RUNTIME: runtime, IMAGE: DEMO_IMAGE },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (built.status !== 0) throw new Error(`building the demo image failed (scripts/images/build-demo.sh exited ${built.status ?? built.signal})`);
}

export async function runDemo(config: Config, options: DemoOptions): Promise<boolean> {
  const say = options.say;
  const missing = missingCommands(config);
  if (missing.length > 0) {
    throw new Error(`the demo needs ${missing.join(', ')}: install them with\n  apt-get install -y bubblewrap samtools bwa fastp`);
  }
  if (inContainers(config)) ensureDemoImage(config, say);
  // The demo runs API and worker in one process, whatever the configuration says.
  const server = await startServer({ ...config, role: 'all', port: 0, host: '127.0.0.1' });
  try {
    say(`gdflow server on ${server.url}, data in ${config.dataDir}`);
    const services = server.services!;
    const { key, reused } = await demoKey(services.store, services.accounts, ACCOUNT);
    say(`account '${ACCOUNT}': access key ${key.id} (secret ${key.secret})${reused ? ', as before' : ''}`);
    const api = new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret } });
    const project = `/accounts/${ACCOUNT}/projects/default`;
    const at: DemoProject = { api, store: services.store, account: ACCOUNT, path: project };
    const registered = (what: string, r: Registered, note = '') =>
      say(`${r.reused ? 'reusing' : 'registered'} ${what} version ${r.version}${note}${r.reused ? ': unchanged' : ''}`);

    // The documents in examples/demo/ are what runs: an identical version is reused, a changed one makes a new version.
    const versions: Record<string, number> = {};
    for (const name of DEMO_TOOLS) {
      const tool = await registerTool(at, name, toolDocument(name, inContainers(config) ? DEMO_IMAGE : undefined));
      versions[name] = tool.version;
      registered(`tool ${name}`, tool);
    }
    const workflow = workflowDocument(ACCOUNT);
    for (const node of workflow.nodelist as Array<{ app_id: string }>) {
      const match = /^\/demo\/([^/]+)\/1$/.exec(node.app_id);
      if (match) node.app_id = `/${ACCOUNT}/${match[1]}/${versions[match[1]!]}`;
    }
    const flow = await registerWorkflow(at, workflow.name, workflow.description, { nodelist: workflow.nodelist });
    const workflowVersion = flow.version;
    registered(`workflow ${workflow.name}`, flow, ` (${workflow.nodelist.length} nodes)`);

    // A sample: a 20 kb reference and simulated 100 bp pairs.
    const { reference, r1, r2 } = demoSample(options.reads);
    for (const [name, content] of [
      ['/demo/input/ref.fa', Buffer.from(reference)],
      ['/demo/input/sample1_R1.fq', r1],
      ['/demo/input/sample1_R2.fq', r2],
    ] as const) {
      await api.send('PUT', `/accounts/${ACCOUNT}/data${name}`, { body: content, contentType: 'application/octet-stream' });
    }
    say(`uploaded a 20 kb reference and ${options.reads} simulated read pairs (wgsim)`);

    const { parameter } = await api.json<{ parameter: RunTemplate }>('GET', `${project}/executable-workflows/${workflow.name}/`, {
      query: { workflow_version: workflowVersion },
    });
    const inputs = { load_read1: '/demo/input/sample1_R1.fq', load_read2: '/demo/input/sample1_R2.fq', load_reference: '/demo/input/ref.fa' };
    for (const [node, name] of Object.entries(inputs)) fillFirst(parameter.Inputs, node, name);
    const outputs = {
      store_bam: 'sample1.sorted.bam',
      store_bai: 'sample1.sorted.bam.bai',
      store_flagstat: 'sample1.flagstat.txt',
      store_fastp: 'sample1.fastp.json',
    };
    for (const [node, file] of Object.entries(outputs)) fillFirst(parameter.Outputs, node, `/demo/results/${file}`);
    const { task_id, task_name } = await api.json<{ task_id: string; task_name: string }>('POST', `${project}/tasks/`, {
      json: { workflow_name: workflow.name, workflow_version: workflowVersion, parameters: parameter },
    });
    say(`task ${task_name} (${task_id}) started`);

    // Follow it: one line per job state change.
    const seen = new Map<string, string>();
    let task: { status: string; reason: string; progress: { done: number; total: number } };
    const started = Date.now();
    for (;;) {
      task = await api.json('GET', `${project}/tasks/${task_id}/`);
      type Job = { node_id: string; name: string; status: string; reason: string; job_id: string; cached_from?: string | null };
      const { jobs } = await api.json<{ jobs: Job[] }>('GET', `${project}/tasks/${task_id}/jobs/`);
      for (const job of jobs) {
        if (seen.get(job.job_id) === job.status) continue;
        seen.set(job.job_id, job.status);
        if (job.status === 'waiting' || job.status === 'queued') continue;
        const done = jobs.filter((j) => j.status === 'succeeded').length;
        const note = job.status === 'failed' ? `: ${job.reason}` : job.cached_from ? ' (from the call cache)' : '';
        say(`  [${String(done).padStart(2)}/${jobs.length}] ${job.node_id.padEnd(16)} ${job.status}${note}`);
      }
      if (['succeeded', 'failed', 'stopped'].includes(task.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (task.status !== 'succeeded') {
      say(`task ${task.status} after ${seconds} s: ${task.reason}`);
      say(`see the logs: gdflow task logs ${task_id} (or the job's Log_downloadURL)`);
      return false;
    }
    say(`task succeeded in ${seconds} s`);

    // Results, read back through the API.
    const read = async (file: string) => (await api.send('GET', `/accounts/${ACCOUNT}/data/demo/results/${file}`)).text();
    const flagstat = await read(outputs.store_flagstat);
    const fastp = JSON.parse(await read(outputs.store_fastp)) as {
      summary: { before_filtering: { total_reads: number; read1_mean_length: number; gc_content: number }; after_filtering: { total_reads: number } };
    };
    const line = (pattern: RegExp) =>
      flagstat
        .split('\n')
        .find((l) => pattern.test(l))
        ?.trim() ?? '?';
    const { items } = await api.json<{ items: Array<{ name: string; size: number }> }>('GET', `/accounts/${ACCOUNT}/data/`, {
      query: { prefix: '/demo/results/' },
    });
    say('');
    say('results (data name, size, file on disk):');
    for (const item of items)
      say(`  ${item.name.padEnd(42)} ${String(item.size).padStart(9)} B  ${join(server.layout.dataStoreRoot, ACCOUNT, item.name.split(':')[1]!)}`);
    say('');
    say('summary:');
    const before = fastp.summary.before_filtering;
    say(
      `  fastp: ${before.total_reads} reads in, ${fastp.summary.after_filtering.total_reads} kept; mean length ${before.read1_mean_length} bp, GC ${(before.gc_content * 100).toFixed(1)}%`,
    );
    say(`  flagstat: ${line(/in total/)}; ${line(/ mapped \(/)}; ${line(/properly paired/)}`);
    say('');
    say(`to look further, run: gdflow serve --data-dir ${config.dataDir}   and use the key above`);
    return true;
  } finally {
    await server.close();
  }
}

/** Name the first data item of a load or save node in the run-parameter template (the demo workflow has them all). */
function fillFirst(entries: Record<string, { data: Array<{ name: string }> }>, node: string, name: string): void {
  const item = entries[node]?.data[0];
  if (!item) throw new Error(`the demo workflow's run-parameter template has no data item for node '${node}'`);
  item.name = name;
}
