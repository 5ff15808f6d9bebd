/**
 * One call cache for every language (docs/tasks.md, "One cache for every language"), against a real server and the
 * real fastp under the bwrap sandbox: the same fastp step written as a GeneDock tool (a task through ActivateWorkflow),
 * as a CWL CommandLineTool (cwl/runs/) and as a WDL task (wdl/tasks/), each as a user of that language writes it, with
 * the same image, command and inputs, runs once; the CWL and WDL runs are hits on the tool's job, `task explain` says
 * which job and which language they reused, and every output is byte for byte the one the tool's job wrote. Then one
 * variant of the CWL tool per part of the key that must make a miss (image, environment, network, output glob, command
 * text, input content) runs, and explain names that part; a variant asking for other resources (memory, cores) is a hit.
 * With podman, a tool job and a WDL task in the same image share a key, and the image's name moved to another image
 * (another digest) makes the next run miss.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { cli } from '../cli/support.js';
import { skipWithout } from '../helpers/components.js';
import { readOutput, runCwl, waitForCwlRun } from '../helpers/cwl-runs.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, download, upload, waitForTask } from '../helpers/tasks.js';
import { gdpy, gwcForm, sendForm } from '../helpers/wdl.js';
import { createWorkflow, registerTool, singleToolWorkflow, template, toolId } from '../helpers/workflows.js';
import { imageDigest, skipWithoutRuntime } from '../helpers/containers.js';

const IMAGE = 'quay.io/biocontainers/fastp:0.23.2';

/** The GeneDock tool, as the demo's fastp (examples/demo/fastp-tool.yml) writes it; WDL tasks have the network, so it asks for it. */
const TOOL = {
  cmd_template:
    'fastp -i {{ inputs.read1[0].path }} -I {{ inputs.read2[0].path }} -o {{ outputs.trimmed1[0].path }} -O {{ outputs.trimmed2[0].path }} ' +
    '-j {{ outputs.report[0].path }} -h /var/data/fastp.html -w {{ requirements.resources.cpu }} -q {{ parameters.qualified_quality }} -l 30',
  inputs: {
    read1: { type: 'file', formats: ['fastq', 'fq'], minitems: 1, maxitems: 1, required: true },
    read2: { type: 'file', formats: ['fastq', 'fq'], minitems: 1, maxitems: 1, required: true },
  },
  outputs: {
    trimmed1: { type: 'file', formats: 'fq', minitems: 1, maxitems: 1, required: true },
    trimmed2: { type: 'file', formats: 'fq', minitems: 1, maxitems: 1, required: true },
    report: { type: 'file', formats: 'json', minitems: 1, maxitems: 1, required: true },
  },
  parameters: { qualified_quality: { type: 'integer', default: 15, minvalue: 0, maxvalue: 60 } },
  requirements: { container: { image: IMAGE, type: 'docker' }, resources: { cpu: 2, mem: '2g', disk: '2g', network: true } },
};

/** The CWL CommandLineTool: an argv with positions, outputs named after a sample (globs are expressions), the image as a DockerRequirement. */
function cwlTool(change: { image?: string; env?: Record<string, string>; network?: boolean; out1?: string; quality?: number; ram?: number } = {}) {
  const out1 = change.out1 ?? '$(inputs.sample)_1.fq';
  return {
    cwlVersion: 'v1.2',
    class: 'CommandLineTool',
    baseCommand: 'fastp',
    requirements: {
      DockerRequirement: { dockerPull: change.image ?? IMAGE },
      ResourceRequirement: { coresMin: 2, ...(change.ram !== undefined ? { ramMin: change.ram } : {}) },
      ...(change.network === false ? {} : { NetworkAccess: { networkAccess: true } }),
      ...(change.env ? { EnvVarRequirement: { envDef: change.env } } : {}),
    },
    inputs: {
      read1: { type: 'File', inputBinding: { position: 1, prefix: '-i' } },
      read2: { type: 'File', inputBinding: { position: 2, prefix: '-I' } },
      sample: { type: 'string', default: 'trimmed' },
      threads: { type: 'int', default: 2, inputBinding: { position: 7, prefix: '-w' } },
      quality: { type: 'int', default: change.quality ?? 15, inputBinding: { position: 8, prefix: '-q' } },
    },
    arguments: [
      { position: 3, prefix: '-o', valueFrom: out1 },
      { position: 4, prefix: '-O', valueFrom: '$(inputs.sample)_2.fq' },
      { position: 5, prefix: '-j', valueFrom: '$(runtime.outdir)/fastp.json' },
      { position: 6, prefix: '-h', valueFrom: 'fastp.html' },
      { position: 9, prefix: '-l', valueFrom: '30' },
    ],
    outputs: {
      trimmed1: { type: 'File', outputBinding: { glob: out1 } },
      trimmed2: { type: 'File', outputBinding: { glob: '$(inputs.sample)_2.fq' } },
      report: { type: 'File', outputBinding: { glob: '$(runtime.outdir)/fastp.json' } },
    },
  };
}

/** The WDL task, its command section as WDL users write it (one flag per line), in a workflow that calls it. */
const WDL = `version 1.0

task fastp {
  input {
    File read1
    File read2
    Int threads = 2
  }
  command <<<
    fastp -i ~{read1} -I ~{read2} \\
      -o trimmed_1.fq -O trimmed_2.fq \\
      -j fastp.json -h fastp.html \\
      -w ~{threads} -q 15 -l 30
  >>>
  output {
    File trimmed1 = "trimmed_1.fq"
    File trimmed2 = "trimmed_2.fq"
    File report = "fastp.json"
  }
  runtime {
    docker: "${IMAGE}"
    cpu: 2
  }
}

workflow trim {
  input {
    File read1
    File read2
  }
  call fastp { input: read1 = read1, read2 = read2 }
  output {
    File trimmed1 = fastp.trimmed1
    File trimmed2 = fastp.trimmed2
    File report = fastp.report
  }
}
`;

/** Reads fastp keeps most of: 200 pairs of 80 bases, the same each run. */
function fastq(mate: number, salt = ''): string {
  const bases = 'ACGT';
  let seed = 7 + mate + salt.length * 31;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const records = [];
  for (let i = 0; i < 200; i++) {
    const seq = Array.from({ length: 80 }, () => bases[next() % 4]).join('');
    records.push(`@read${i}/${mate}\n${seq}\n+\n${'I'.repeat(70)}${'#'.repeat(10)}\n`);
  }
  return records.join('');
}

const missing = (): string | undefined =>
  ['fastp', 'bwrap'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0).join(', ') || undefined;

async function jobsOf(account: TestAccount, taskId: string): Promise<any[]> {
  return (await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`))).jobs;
}

async function explain(account: TestAccount, taskId: string, jobId: string): Promise<any> {
  return account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/${jobId}/explain/`));
}

/** The job of a run that ran fastp: the one job of its task with a cache key. */
async function fastpJob(account: TestAccount, taskId: string): Promise<any> {
  const jobs = await jobsOf(account, taskId);
  const keyed = [];
  for (const job of jobs) if (job.status === 'succeeded' && (await explain(account, taskId, job.job_id)).cache_key) keyed.push(job);
  assert.equal(keyed.length, 1, JSON.stringify(jobs.map((j) => [j.name, j.node_id, j.status])));
  return keyed[0];
}

describe('one call cache for a GeneDock tool, a CWL CommandLineTool and a WDL task', { skip: skipWithout(missing()), timeout: 300_000 }, () => {
  let server: TestServer;
  let account: TestAccount;
  before(async () => {
    server = await startTestServer({ cpus: 2, executor: 'bwrap' });
    account = await server.account();
    await upload(account, '/in/r_1.fq', fastq(1));
    await upload(account, '/in/r_2.fq', fastq(2));
  });
  after(async () => server?.close());

  let toolJob: any;
  let toolOutputs: string[];
  let cwlInputs: Record<string, unknown>;

  it('runs the GeneDock tool once', async () => {
    await registerTool(account, 'fastp', TOOL);
    const app = await toolId(account, 'fastp', 1);
    const load = (id: string, enid: string) => ({ node_id: id, app_id: 'loaddata', name: 'loaddata', outputs: { data: { enid } } });
    const store = (id: string, enid: string) => ({ node_id: id, app_id: 'storedata', name: 'storedata', inputs: { data: { enid } } });
    const configs = {
      nodelist: [
        load('load_r1', 'r1'),
        load('load_r2', 'r2'),
        {
          node_id: 'fastp',
          app_id: app,
          inputs: { read1: [{ enid: 'r1' }], read2: [{ enid: 'r2' }] },
          outputs: { trimmed1: [{ enid: 't1' }], trimmed2: [{ enid: 't2' }], report: [{ enid: 'rep' }] },
          parameters: {},
        },
        store('store_t1', 't1'),
        store('store_t2', 't2'),
        store('store_rep', 'rep'),
      ],
    };
    assert.equal((await createWorkflow(account, 'trim', configs)).status, 200);
    const parameters = await template(account, 'trim');
    parameters.Inputs.load_r1.data = [{ name: '/in/r_1.fq' }];
    parameters.Inputs.load_r2.data = [{ name: '/in/r_2.fq' }];
    parameters.Outputs.store_t1.data = [{ name: '/tool/trimmed_1.fq' }];
    parameters.Outputs.store_t2.data = [{ name: '/tool/trimmed_2.fq' }];
    parameters.Outputs.store_rep.data = [{ name: '/tool/fastp.json' }];
    const { task_id } = await activate(account, { workflow_name: 'trim', workflow_version: 1, parameters });
    const task = await waitForTask(account, task_id, { timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    toolJob = (await jobsOf(account, task_id)).find((job) => job.node_id === 'fastp');
    assert.equal(toolJob.cached_from, null, 'the first run of the step runs');
    toolOutputs = await Promise.all(['trimmed_1.fq', 'trimmed_2.fq', 'fastp.json'].map((name) => download(account, `/tool/${name}`)));
    assert.match(toolOutputs[0]!, /^@read0\/1\n/);
    assert.equal(JSON.parse(toolOutputs[2]!).summary.before_filtering.total_reads, 400, 'fastp read every read');
  });

  it('the CWL CommandLineTool is a hit on the tool job; explain names the job and its language; outputs are byte-identical', async () => {
    cwlInputs = { read1: { class: 'File', location: 'gdflow:in/r_1.fq' }, read2: { class: 'File', location: 'gdflow:in/r_2.fq' } };
    const started = await runCwl(account, { document: cwlTool(), job: cwlInputs });
    const run = await waitForCwlRun(account, started.task_id, 120_000);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    const job = await fastpJob(account, started.task_id);
    assert.equal(job.cached_from, toolJob.job_id);
    const why = await explain(account, started.task_id, job.job_id);
    assert.equal(why.cache_key, (await explain(account, toolJob.job_id.slice(0, 24), toolJob.job_id)).cache_key, 'one key');
    assert.deepEqual([why.source.job_id, why.source.language], [toolJob.job_id, 'GeneDock tool']);
    assert.match(why.summary, new RegExp(`a cache hit: the outputs of job ${toolJob.job_id} \\(GeneDock tool fastp, of task `));
    const outputs = await Promise.all(['trimmed1', 'trimmed2', 'report'].map((name) => readOutput(account, run.outputs![name])));
    assert.deepEqual(outputs, toolOutputs);
  });

  it('the WDL task is a hit on the tool job too, and `gdflow task explain` says so', async () => {
    const form = gwcForm({ name: 'trim_wdl', description: '' }, { source: { filename: 'trim.wdl', data: WDL } });
    const created = await sendForm(server, account, 'POST', 'wdl/workflow/', form);
    assert.equal(created.status, 200, created.text);
    const started = await gdpy(server, account, 'POST', 'wdl/tasks/', {
      workflow_id: created.json().id,
      workflow_version: 1,
      inputs: { 'trim.read1': `${account.name}:/in/r_1.fq`, 'trim.read2': `${account.name}:/in/r_2.fq` },
      output_dir: `${account.name}:/wdl/`,
      task_name: 'trim_wdl_run',
      keep_output_structure: false,
    });
    assert.equal(started.status, 200, started.text);
    const taskId = started.json().task_id as string;
    const task = await waitForTask(account, taskId, { timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const job = await fastpJob(account, taskId);
    assert.equal(job.cached_from, toolJob.job_id, 'the job that ran, not the CWL hit on it');
    const env = {
      GDFLOW_CONFIG_FILE: '/nonexistent/gdflow.yml',
      GDFLOW_ENDPOINT: server.url,
      GDFLOW_ACCESS_KEY_ID: account.accessKeyId,
      GDFLOW_ACCESS_KEY_SECRET: account.accessKeySecret,
    };
    const said = await cli(['task', 'explain', job.job_id], { env });
    assert.equal(said.status, 0, said.stderr);
    assert.match(said.stdout, new RegExp(`a cache hit: the outputs of job ${toolJob.job_id} \\(GeneDock tool fastp, of task ${toolJob.job_id.slice(0, 24)} `));
    assert.match(said.stdout, new RegExp(`reused: job ${toolJob.job_id}, a GeneDock tool`));
    const outputs = await Promise.all(['trimmed_1.fq', 'trimmed_2.fq', 'fastp.json'].map((name) => download(account, `/wdl/${name}`)));
    assert.deepEqual(outputs, toolOutputs);
  });

  const variants: Array<{ what: string; change: Parameters<typeof cwlTool>[0]; inputs?: 'other'; part: string | null }> = [
    { what: 'another image', change: { image: 'quay.io/biocontainers/fastp:0.23.4' }, part: 'image' },
    { what: 'an environment variable', change: { env: { FASTP_TRACE: '1' } }, part: 'environment' },
    { what: 'no network access', change: { network: false }, part: 'network' },
    { what: 'another output glob (and name)', change: { out1: 'trimmed_R1.fq' }, part: 'output' },
    { what: 'another command (-q 20)', change: { quality: 20 }, part: 'command' },
    { what: 'other input content', change: {}, inputs: 'other', part: 'input' },
    { what: 'more memory, which changes no result', change: { ram: 4096 }, part: null },
  ];
  for (const variant of variants) {
    it(`a CWL variant with ${variant.what} ${variant.part ? 'misses, and explain names the part' : 'is still a hit'}`, async () => {
      let inputs = cwlInputs;
      if (variant.inputs === 'other') {
        await upload(account, '/in/other/r_1.fq', fastq(1, 'other'));
        inputs = { ...cwlInputs, read1: { class: 'File', location: 'gdflow:in/other/r_1.fq' } };
      }
      const started = await runCwl(account, { document: cwlTool(variant.change), job: inputs });
      const run = await waitForCwlRun(account, started.task_id, 120_000);
      assert.equal(run.status, 'succeeded', run.reason ?? '');
      const job = await fastpJob(account, started.task_id);
      const why = await explain(account, started.task_id, job.job_id);
      if (variant.part === null) {
        assert.equal(job.cached_from, toolJob.job_id, why.summary);
        return;
      }
      assert.equal(job.cached_from, null, why.summary);
      assert.ok(
        why.differences.some((d: any) => d.part === variant.part),
        `${variant.part} among ${JSON.stringify(why.differences.map((d: any) => d.part))}: ${why.summary}`,
      );
    });
  }
});

/** A WDL task that sorts its lines in IMAGE, as a WDL user writes it. */
const sortWdl = (image: string) => `version 1.0

task sort_lines {
  input {
    File lines
  }
  command <<<
    sort ~{lines} > sorted.txt
  >>>
  output {
    File sorted = "sorted.txt"
  }
  runtime {
    docker: "${image}"
  }
}

workflow sorting {
  input {
    File lines
  }
  call sort_lines { input: lines = lines }
}
`;

describe('one call cache in containers (podman): the image digest is in the key', { skip: skipWithoutRuntime('podman'), timeout: 300_000 }, () => {
  // A name of this run's own: the test moves it to another image, which would change the image under a concurrent run.
  const IMAGE_NAME = `localhost/gdflow-xlang-cache:test-${process.pid}`;
  const podman = (args: string[]) => spawnSync('podman', args, { encoding: 'utf8' });
  let server: TestServer;
  let account: TestAccount;
  before(async () => {
    const tagged = podman(['tag', 'docker.io/library/alpine:latest', IMAGE_NAME]);
    assert.equal(tagged.status, 0, tagged.stderr);
    server = await startTestServer({ cpus: 2, executor: 'podman' });
    account = await server.account();
    await upload(account, '/in/lines.txt', 'c\na\nb\n');
  });
  after(async () => {
    await server?.close();
    podman(['rmi', IMAGE_NAME]);
  });

  const runWdl = async (workflowId: string, name: string) => {
    const started = await gdpy(server, account, 'POST', 'wdl/tasks/', {
      workflow_id: workflowId,
      workflow_version: 1,
      inputs: { 'sorting.lines': `${account.name}:/in/lines.txt` },
      output_dir: `${account.name}:/${name}/`,
      task_name: name,
      keep_output_structure: false,
    });
    assert.equal(started.status, 200, started.text);
    const task = await waitForTask(account, started.json().task_id, { timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    return fastpJob(account, started.json().task_id);
  };

  it('a WDL task is a hit on the tool job in the same image; the name moved to another image misses on image_digest', async () => {
    await singleToolWorkflow(account, 'sorter', {
      cmd_template: 'sort {{ inputs.lines[0].path }} > {{ outputs.out[0].path }}',
      inputs: { lines: { type: 'file', formats: ['txt'], minitems: 1, maxitems: 1, required: true } },
      outputs: { out: { type: 'file', formats: 'txt', minitems: 1, maxitems: 1, required: true } },
      parameters: {},
      requirements: { container: { image: IMAGE_NAME, type: 'docker' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: true } },
    });
    const parameters = await template(account, 'sorter');
    parameters.Inputs.load.data = [{ name: '/in/lines.txt' }];
    parameters.Outputs.save.data = [{ name: '/tool/sorted.txt' }];
    const { task_id } = await activate(account, { workflow_name: 'sorter', workflow_version: 1, parameters });
    const task = await waitForTask(account, task_id, { timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const toolJob = (await jobsOf(account, task_id)).find((job) => job.node_id === 'work');
    assert.equal(toolJob.cached_from, null);
    assert.equal(await download(account, '/tool/sorted.txt'), 'a\nb\nc\n');

    const form = gwcForm({ name: 'sorting', description: '' }, { source: { filename: 'sort.wdl', data: sortWdl(IMAGE_NAME) } });
    const created = await sendForm(server, account, 'POST', 'wdl/workflow/', form);
    assert.equal(created.status, 200, created.text);
    const hit = await runWdl(created.json().id, 'wdl_same_image');
    assert.equal(hit.cached_from, toolJob.job_id, (await explain(account, hit.job_id.slice(0, 24), hit.job_id)).summary);
    assert.equal(await download(account, '/wdl_same_image/sorted.txt'), 'a\nb\nc\n');

    const before = imageDigest('podman', IMAGE_NAME);
    const moved = podman(['tag', 'docker.io/library/bash:4.4', IMAGE_NAME]);
    assert.equal(moved.status, 0, moved.stderr);
    assert.notEqual(imageDigest('podman', IMAGE_NAME), before, 'the name is another image now');
    // The executor resolves a name again once its resolution is 10 s old (container/images.ts): until then jobs run,
    // and are keyed, in the image it resolved before.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const miss = await runWdl(created.json().id, 'wdl_moved_image');
    const why = await explain(account, miss.job_id.slice(0, 24), miss.job_id);
    assert.equal(miss.cached_from, null, why.summary);
    assert.deepEqual(
      why.differences.map((d: any) => d.part),
      ['image_digest'],
      why.summary,
    );
  });
});
