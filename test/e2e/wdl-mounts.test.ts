/**
 * WDL disks at mount points on the sandboxed executors (docs/wdl.md, "Disks"), through wdl/tasks/ on a real server with
 * bwrap, with podman (the tiny image) and with Slurm wrapping its jobs in bwrap: a task asking `["1 GiB", "/mnt/outputs 1 GiB"]` finds /mnt/outputs writable,
 * writes a file there and reads it back, and its File output in /mnt/outputs is collected; the directory behind it is
 * the job's own, in its directory under the data root, and goes with the task when it is deleted. A mount point no
 * sandbox can take is refused when the workflow is created, naming the file, line and column. (The host executor, which
 * mounts nothing, is test/e2e/wdl-disks.test.ts's.)
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipWithout } from '../helpers/components.js';
import { ensureTinyImage, skipWithoutRuntime, TINY_IMAGE } from '../helpers/containers.js';
import { assertRefused } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { slurmUnavailable, startSlurm } from '../helpers/slurm.js';
import { waitForTask } from '../helpers/tasks.js';
import { gdpy, gwcForm, sendForm } from '../helpers/wdl.js';

/** `image`: the task's container (the bwrap executor runs none). */
const mountedWdl = (image: string) => `version 1.1

task mounted {
  command <<<
    set -e
    test -w /mnt/outputs
    echo "kept on the disk" > /mnt/outputs/note.txt
    cat /mnt/outputs/note.txt
  >>>
  runtime {
    container: "${image}"
    disks: ["1 GiB", "/mnt/outputs 1 GiB"]
  }
  output {
    String said = read_string(stdout())
    File note = "/mnt/outputs/note.txt"
  }
}

workflow mounts {
  call mounted
  output {
    String said = mounted.said
    String noted = read_string(mounted.note)
  }
}
`;

/** Every path under `dir` whose end is `tail`. */
function findUnder(dir: string, tail: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((rel) => join(dir, rel))
    .filter((path) => path.endsWith(tail));
}

const VARIANTS = [
  { executor: 'bwrap', skip: undefined, prepare: () => Promise.resolve() },
  { executor: 'podman', skip: skipWithoutRuntime('podman'), prepare: () => Promise.resolve(ensureTinyImage('podman')) },
  // Slurm wrapping its jobs in bwrap (its default): the node runs the same sandbox with the same binds.
  { executor: 'slurm', skip: skipWithout(slurmUnavailable()), prepare: async () => void (await startSlurm()) },
] as const;

for (const variant of VARIANTS) {
  describe(`WDL disks at mount points on ${variant.executor}`, { skip: variant.skip, timeout: 300_000 }, () => {
    let server: TestServer;
    let alice: TestAccount;

    before(async () => {
      await variant.prepare();
      server = await startTestServer({ cpus: 2, executor: variant.executor, ...(variant.executor === 'podman' ? { pullPolicy: 'never' } : {}) });
      alice = await server.account();
    });
    after(() => server.close());

    const create = async (name: string, filename: string, source: string) =>
      sendForm(server, alice, 'POST', 'wdl/workflow/', gwcForm({ name, description: '' }, { source: { filename, data: source } }));

    it('binds a directory of the job at each mount point, writable; the task writes and reads it, its output is collected from it', async () => {
      const created = await create('mounts', 'mounts.wdl', mountedWdl(TINY_IMAGE));
      assert.equal(created.status, 200, created.text);
      const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', { workflow_id: created.json().id, inputs: {} });
      assert.equal(started.status, 200, started.text);
      const taskId = started.json().task_id as string;
      const task = await waitForTask(alice, taskId, { timeoutMs: 240_000 });
      assert.equal(task.status, 'succeeded', task.reason);

      const { jobs } = (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/`)).json();
      const job = (jobs as Array<{ name: string; disk: string | null }>).find((j) => j.name === 'mounted');
      assert.equal(job?.disk, '2048m', 'both disks are asked of the data root');
      if (variant.executor === 'slurm') {
        const { jobs: views } = await alice.api.json<{ jobs: Array<{ name: string; external_id: string | null }> }>(
          'GET',
          projectPath(alice.name, `tasks/${taskId}/jobs/`),
        );
        assert.match(views.find((view) => view.name === 'mounted')?.external_id ?? '', /^\d+$/, 'it ran as a Slurm job');
      }
      const { outputs } = (await gdpy(server, alice, 'GET', `wdl/runs/${taskId}/`)).json();
      assert.equal(outputs['mounts.said'], 'kept on the disk');
      assert.equal(outputs['mounts.noted'], 'kept on the disk', 'the File output in /mnt/outputs was collected');

      // The disk is a directory of the job's own under the data root, and nothing was made at /mnt/outputs on the host.
      const kept = findUnder(server.dataDir, '/.gdflow-roots/mnt/outputs/note.txt');
      assert.equal(kept.length, 1, `one job's disk under ${server.dataDir}`);
      assert.equal(readFileSync(kept[0]!, 'utf8'), 'kept on the disk\n');
      assert.equal(existsSync('/mnt/outputs/note.txt'), false, "the host's /mnt is not the task's");

      // Deleting the task removes the job's files, its disks with them.
      const deleted = await gdpy(server, alice, 'DELETE', `wdl/tasks/${taskId}/`);
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(existsSync(kept[0]!), false, 'the disk went with the task');
    });

    it('refuses a mount point no sandbox can take, naming the file, line and column', async () => {
      const cases: Array<[string, RegExp]> = [
        ['/proc/x', /the mount point \/proc\/x is in \/proc, a directory of the system/],
        ['/dev', /the mount point \/dev is in \/dev/],
        ['/', /the mount point \/ is the whole file system/],
        ['/var/data', /the mount point \/var\/data is the working directory \(\/var\/data\) or in it/],
        ['/mnt//outputs', /the mount point \/mnt\/\/outputs is not a normalised path/],
        ['/mnt/outputs/', /the mount point \/mnt\/outputs\/ is not a normalised path/],
      ];
      for (const [path, reason] of cases) {
        const source = mountedWdl(TINY_IMAGE).replace('"/mnt/outputs 1 GiB"', `"${path} 1 GiB"`);
        assertRefused(await create('bad_mounts', 'bad.wdl', source), 400, 'InvalidParameter', new RegExp(`bad\\.wdl:12:12: runtime disks: .*${reason.source}`));
      }
    });
  });
}
