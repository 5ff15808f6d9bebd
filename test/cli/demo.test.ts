/**
 * `gdflow demo` end to end: the alignment pipeline on simulated reads, on the bwrap sandbox and in containers of the
 * demo image (podman), and on a Slurm cluster (bwrap or podman on the node).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { skipWithout } from '../helpers/components.js';
import { DEMO_IMAGE, gdflowContainers, hasImage, runtimeUnavailable } from '../helpers/containers.js';
import { runCli } from '../helpers/process.js';
import { slurmUnavailable, startSlurm } from '../helpers/slurm.js';

const scratch = mkdtempSync(join(tmpdir(), 'gdflow-demo-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Why the demo cannot run in podman containers here without building its image first (about a minute). */
function podmanDemoUnavailable(): string | undefined {
  return runtimeUnavailable('podman') ?? (hasImage('podman', DEMO_IMAGE) ? undefined : `${DEMO_IMAGE} is not built (scripts/images/build-demo.sh; gdflow demo builds it itself)`);
}

const VARIANTS: Array<{ name: string; args: string[]; skip: string | undefined; slurm?: true; containers?: true }> = [
  { name: '--executor bwrap', args: ['--executor', 'bwrap'], skip: undefined },
  { name: '--executor podman', args: ['--executor', 'podman'], skip: skipWithout(podmanDemoUnavailable()), containers: true },
  // Each of the pipeline's jobs one sbatch on a throwaway single-node cluster, run in bwrap on the node ...
  { name: '--executor slurm', args: ['--executor', 'slurm'], skip: skipWithout(slurmUnavailable()), slurm: true },
  // ... or in the demo image's containers on the node.
  { name: '--executor slurm --slurm-wrap podman', args: ['--executor', 'slurm', '--slurm-wrap', 'podman'], skip: skipWithout(slurmUnavailable() ?? podmanDemoUnavailable()), slurm: true, containers: true },
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
