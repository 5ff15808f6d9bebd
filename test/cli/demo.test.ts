/**
 * `gdflow demo` end to end: the alignment pipeline on simulated reads, on the bwrap sandbox and in containers of the
 * demo image (podman), and on a Slurm cluster (bwrap or podman on the node).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from '../../src/client/index.js';
import { DEMO_TOOLS, toolDocument, workflowDocument } from '../../src/demo/documents.js';
import { registerTool, registerWorkflow, type DemoProject } from '../../src/demo/register.js';
import { skipWithout } from '../helpers/components.js';
import { DEMO_IMAGE, demoImageUnavailable, gdflowContainers } from '../helpers/containers.js';
import { runCli, startServerProcess, waitForExit } from '../helpers/process.js';
import { startTestServer } from '../helpers/server.js';
import { slurmUnavailable, startSlurm } from '../helpers/slurm.js';

const scratch = mkdtempSync(join(tmpdir(), 'gdflow-demo-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Why the demo cannot run in podman containers here without building its image first (about a minute). */
const podmanDemoUnavailable = (): string | undefined => demoImageUnavailable('podman');

const VARIANTS: Array<{ name: string; args: string[]; skip: string | undefined; slurm?: true; containers?: true }> = [
  { name: '--executor bwrap', args: ['--executor', 'bwrap'], skip: undefined },
  { name: '--executor podman', args: ['--executor', 'podman'], skip: skipWithout(podmanDemoUnavailable()), containers: true },
  // Each of the pipeline's jobs one sbatch on a throwaway single-node cluster, run in bwrap on the node ...
  { name: '--executor slurm', args: ['--executor', 'slurm'], skip: skipWithout(slurmUnavailable()), slurm: true },
  // ... or in the demo image's containers on the node.
  {
    name: '--executor slurm --slurm-wrap podman',
    args: ['--executor', 'slurm', '--slurm-wrap', 'podman'],
    skip: skipWithout(slurmUnavailable() ?? podmanDemoUnavailable()),
    slurm: true,
    containers: true,
  },
];

describe('gdflow demo', { timeout: 180_000 }, () => {
  for (const variant of VARIANTS) {
    it(`runs the alignment pipeline to the end: ${variant.name}`, { skip: variant.skip }, async () => {
      const cluster = variant.slurm ? await startSlurm() : undefined;
      const dataDir = join(scratch, variant.args.join('-').replace(/[^a-z-]/g, ''));
      const demo = runCli(['demo', ...variant.args, '--reads', '200', '--data-dir', dataDir]);
      assert.equal(demo.status, 0, `${demo.stdout}\n${demo.stderr}`);
      assert.match(demo.stdout, /task succeeded in/);
      assert.match(demo.stdout, /fastp: 400 reads in/);
      assert.match(demo.stdout, /flagstat: 400 \+ 0 in total/);
      const taskId = /task \S+ \(([0-9a-f]{24})\) started/.exec(demo.stdout)?.[1];
      assert.ok(taskId, 'the demo names its task');
      if (variant.containers) assert.deepEqual(gdflowContainers('podman', taskId), [], 'no container is left');
      if (cluster) assert.deepEqual(cluster.queued(), [], 'no Slurm job is left');
    });
  }
});

describe('gdflow demo run again', { timeout: 180_000 }, () => {
  it('reuses its account key, tool versions and workflow version in the same data dir', async () => {
    const dataDir = join(scratch, 'twice');
    const runs = [1, 2].map(() => runCli(['demo', '--reads', '200', '--data-dir', dataDir]));
    for (const run of runs) assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const keys = runs.map((run) => /access key (\S+) \(secret (\S+)\)/.exec(run.stdout)?.slice(1));
    assert.deepEqual(keys[1], keys[0], 'the second run prints the key of the first');
    for (const name of DEMO_TOOLS) assert.match(runs[1]!.stdout, new RegExp(`reusing tool ${name} version 1: unchanged`));
    assert.match(runs[1]!.stdout, /reusing workflow align_paired version 1 \(11 nodes\): unchanged/);
    assert.match(runs[1]!.stdout, /qc +succeeded \(from the call cache\)/, 'the same tools on the same reads: every job reused');

    const listed = runCli(['admin', 'list-accounts', '--json', '--data-dir', dataDir]);
    assert.equal(listed.status, 0, listed.stderr);
    const demo = (JSON.parse(listed.stdout) as Array<{ account_name: string; keys: unknown[] }>).find((a) => a.account_name === 'demo');
    assert.equal(demo?.keys.length, 1, 'one key for the demo account');

    // What a user who serves the data dir afterwards sees: one version of each.
    const served = await startServerProcess(dataDir);
    try {
      const [accessKeyId, accessKeySecret] = keys[0]!;
      const gd = new Client({ endpoint: served.url, accessKeyId: accessKeyId!, accessKeySecret: accessKeySecret! });
      const tools = (await gd.listTools()).items.map((group) => group.map((t) => `${t.tool_name}:${t.tool_version}`));
      assert.deepEqual(tools.flat().sort(), DEMO_TOOLS.map((name) => `${name}:1`).sort());
      assert.deepEqual(
        (await gd.listWorkflows()).items.map((group) => group.map((w) => `${w.workflow_name}:${w.workflow_version}`)),
        [['align_paired:1']],
      );
      assert.equal((await gd.listTasks()).task_list.length, 2);
    } finally {
      served.child.kill('SIGTERM');
      await waitForExit(served.child);
    }
  });

  it('reuses a version only when its definition is identical, and any identical version', async () => {
    const server = await startTestServer();
    try {
      const owner = await server.account();
      const at: DemoProject = { api: owner.api, store: server.services.store, account: owner.name, path: `/accounts/${owner.name}/projects/default` };
      const plain = toolDocument('fastp');
      const contained = toolDocument('fastp', DEMO_IMAGE);
      assert.deepEqual(await registerTool(at, 'fastp', plain), { version: 1, reused: false });
      assert.deepEqual(await registerTool(at, 'fastp', toolDocument('fastp')), { version: 1, reused: true });
      assert.deepEqual(await registerTool(at, 'fastp', contained), { version: 2, reused: false }, 'another image is another definition');
      assert.deepEqual(await registerTool(at, 'fastp', plain), { version: 1, reused: true }, 'back to the first document: its version');
      assert.deepEqual(await registerTool(at, 'fastp', { ...plain, cmd_template: `${String(plain.cmd_template)} -V` }), { version: 3, reused: false });

      const workflow = workflowDocument(owner.name);
      for (const name of DEMO_TOOLS.slice(1)) await registerTool(at, name, toolDocument(name));
      const configs = { nodelist: workflow.nodelist };
      assert.deepEqual(await registerWorkflow(at, workflow.name, workflow.description, configs), { version: 1, reused: false });
      assert.deepEqual(await registerWorkflow(at, workflow.name, workflow.description, structuredClone(configs)), { version: 1, reused: true });
      assert.deepEqual(await registerWorkflow(at, workflow.name, 'another description', configs), { version: 2, reused: false });
    } finally {
      await server.close();
    }
  });
});
