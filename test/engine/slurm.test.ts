/**
 * The Slurm executor against a real single-node Slurm (helpers/slurm.ts): the executor contract's cases that
 * concern a job's life (exit codes, logs, /var/data, mounts, environment, redirections, stop, timeout, memory
 * limit, hostile command text), the Slurm job id as the external handle, adoption of a job by another executor
 * (as after a worker's death), the true end of a job that ended while nobody watched, and one squeue per poll for
 * all jobs. Both ways of running a job on the node: bwrap and host.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SlurmExecutor, type RunSpec, type SlurmWrap } from '../../src/engine/executors/index.js';
import { skipWithout } from '../helpers/components.js';
import { ensureTinyImage, gdflowContainers, skipWithoutRuntime, TINY_IMAGE } from '../helpers/containers.js';
import { slurmUnavailable, startSlurm, type SlurmCluster } from '../helpers/slurm.js';
import { until } from '../helpers/until.js';

const skip = skipWithout(slurmUnavailable());
let base: string;
let cluster: SlurmCluster;
let counter = 0;

async function newJob(command: string, extra: Partial<RunSpec> = {}): Promise<RunSpec> {
  const n = ++counter;
  const dir = join(base, `job${n}`);
  await mkdir(dir, { recursive: true });
  return {
    jobId: `slurmtest${process.pid}_${n}`,
    workDir: join(dir, 'work'),
    command,
    mounts: [],
    stdoutLog: join(dir, 'logs', 'stdout.log'),
    stderrLog: join(dir, 'logs', 'stderr.log'),
    cpu: 1,
    memMb: 256,
    network: false,
    timeoutSeconds: 0,
    ...extra,
  };
}

const never = (): AbortSignal => new AbortController().signal;
const read = (path: string): Promise<string> => readFile(path, 'utf8');
/** A command that runs until the test creates `file`: a job that holds its place for as long as the test needs. */
const holdUntil = (file: string): string => `while [ ! -e ${file} ]; do sleep 0.1; done`;

describe('Slurm executor', { skip, timeout: 300_000 }, () => {
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'gdflow-slurm-test-'));
    cluster = await startSlurm();
  });
  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  for (const wrap of ['bwrap', 'host'] as SlurmWrap[]) {
    describe(`wrapped with ${wrap} on the node`, () => {
      const executor = new SlurmExecutor({ wrap, pollMs: 100, queueMs: 1000 });
      after(() => executor.close());

      it('check() reaches the cluster', async () => {
        await executor.check();
      });

      it('exit 0: succeeded; the Slurm job id is reported once through onStarted, as the external id', async () => {
        const spec = await newJob('echo out; echo err >&2');
        const started: Array<{ externalId?: string }> = [];
        const result = await executor.run(spec, never(), { onStarted: (info) => started.push(info) });
        assert.equal(result.outcome, 'succeeded', result.reason);
        assert.equal(result.exitCode, 0);
        assert.equal(started.length, 1);
        assert.match(started[0]!.externalId ?? '', /^\d+$/);
        assert.equal(await read(spec.stdoutLog), 'out\n');
        assert.equal(await read(spec.stderrLog), 'err\n');
        assert.equal(result.memoryEnforcement, 'slurm');
        assert.ok(result.endedAt >= result.startedAt);
      });

      it('exit 3: failed with "exit code 3"', async () => {
        const result = await executor.run(await newJob('exit 3'), never());
        assert.equal(result.outcome, 'failed');
        assert.equal(result.exitCode, 3);
        assert.equal(result.reason, 'exit code 3');
      });

      it('the command runs in /var/data (its work directory), with only PATH, HOME, LANG and spec.env', async () => {
        const spec = await newJob('pwd > where.txt; env | sort > env.txt', { env: { SAMPLE: 'a b' } });
        const result = await executor.run(spec, never());
        assert.equal(result.outcome, 'succeeded', result.reason);
        const where = (await read(join(spec.workDir, 'where.txt'))).trim();
        if (wrap === 'bwrap') assert.equal(where, '/var/data');
        const names = (await read(join(spec.workDir, 'env.txt')))
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('=')[0]);
        assert.ok(names.includes('SAMPLE'));
        assert.ok(!names.some((n) => n!.startsWith('SLURM')), `no Slurm variable leaks in: ${names.join(' ')}`);
        assert.ok(!names.includes('SLURM_CONF'));
      });

      it('mounts and redirections: an input read through stdin, the output written through stdout', async () => {
        const input = join(base, `input-${wrap}.txt`);
        await writeFile(input, 'ACGT\n');
        const spec = await newJob('tr A a', {
          mounts: [{ hostPath: input, sandboxPath: '/var/data/inputs/in.txt', readOnly: true }],
          stdin: '/var/data/inputs/in.txt',
          stdout: '/var/data/out.txt',
        });
        const result = await executor.run(spec, never());
        assert.equal(result.outcome, 'succeeded', result.reason);
        assert.equal(await read(join(spec.workDir, 'out.txt')), 'aCGT\n');
      });

      it('command text that tries to break out of the script is only the command', async () => {
        const marker = `/tmp/gdflow-pwned-${process.pid}-${wrap}`;
        const spec = await newJob(`echo "it's"; echo '$(touch ${marker})' '\`touch ${marker}\`'; echo 'a"b'`, { env: { X: `'; touch ${marker}; '` } });
        const result = await executor.run(spec, never());
        assert.equal(result.outcome, 'succeeded', result.reason);
        assert.equal(await read(spec.stdoutLog), `it's\n$(touch ${marker}) \`touch ${marker}\`\na"b\n`);
        await assert.rejects(readFile(marker), 'nothing was run from the text');
      });

      it('stop: scancel, resolves killed, and nothing of the job is left in the queue', async () => {
        const spec = await newJob('sleep 300');
        const controller = new AbortController();
        let id = '';
        const running = executor.run(spec, controller.signal, { onStarted: (info) => (id = info.externalId ?? '') });
        await until('the job to be submitted', () => id || undefined);
        // Stopped while it runs on the node, not while Slurm may still hold it pending (a fixed wait would leave that to the load).
        await until('the job to run on the node', () => cluster.state(id) === 'RUNNING');
        controller.abort();
        const result = await running;
        assert.equal(result.outcome, 'killed');
        assert.equal(result.reason, 'stopped');
        assert.ok(!cluster.queued().includes(id), `Slurm job ${id} is not in the queue`);
      });

      it('timeout: timed_out, counted from the start on the node', async () => {
        const result = await executor.run(await newJob('sleep 300', { timeoutSeconds: 2 }), never());
        assert.equal(result.outcome, 'timed_out');
        assert.match(result.reason, /timed out after 2 s/);
      });

      it('memory limit: a job over its --mem is killed by Slurm and fails with a reason that says so', async () => {
        const result = await executor.run(await newJob(`perl -e '$x = "a" x (400*1024*1024); sleep 5'`, { memMb: 100 }), never());
        assert.equal(result.outcome, 'out_of_memory');
        assert.match(result.reason, /out of memory: exceeded the 100 MB limit/);
      });
    });
  }

  describe("wrapped with podman on the node: each job in its tool's image", { skip: skipWithoutRuntime('podman') }, () => {
    const executor = new SlurmExecutor({ wrap: 'podman', pollMs: 100, queueMs: 1000, container: { killGraceMs: 1000 } });
    before(async () => {
      ensureTinyImage('podman');
      await executor.check();
    });
    after(() => executor.close());
    const inImage = (command: string, extra: Partial<RunSpec> = {}) => newJob(command, { image: TINY_IMAGE, ...extra });

    it("runs in a container of the image (hostname gdflow, /var/data), logs in the job's files, its environment only", async () => {
      const spec = await inImage('hostname; pwd; echo "$SAMPLE"; env | grep -c SLURM; echo err >&2; echo done > here.txt', { env: { SAMPLE: "it's a b" } });
      let id = '';
      const result = await executor.run(spec, never(), { onStarted: (info) => (id = info.externalId ?? '') });
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.match(id, /^\d+$/, 'the external id is the Slurm job id');
      assert.equal(await read(spec.stdoutLog), "gdflow\n/var/data\nit's a b\n0\n");
      assert.equal(await read(spec.stderrLog), 'err\n');
      assert.equal(await read(join(spec.workDir, 'here.txt')), 'done\n');
      assert.equal(result.memoryEnforcement, 'container');
      assert.deepEqual(gdflowContainers('podman', spec.jobId), [], 'the container is gone');
    });

    it('exit 3: failed with "exit code 3"', async () => {
      const result = await executor.run(await inImage('exit 3'), never());
      assert.equal(result.outcome, 'failed');
      assert.equal(result.exitCode, 3);
      assert.equal(result.reason, 'exit code 3');
    });

    it('an input mounted read-only, read through stdin; the output written through stdout', async () => {
      const input = join(base, 'input-podman.txt');
      await writeFile(input, 'ACGT\n');
      const spec = await inImage('tr A a; echo x > /var/data/inputs/in.txt || echo read-only >&2', {
        mounts: [{ hostPath: input, sandboxPath: '/var/data/inputs/in.txt', readOnly: true }],
        stdin: '/var/data/inputs/in.txt',
        stdout: '/var/data/out.txt',
      });
      const result = await executor.run(spec, never());
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.equal(await read(join(spec.workDir, 'out.txt')), 'aCGT\n');
      assert.match(await read(spec.stderrLog), /read-only/);
      assert.equal(await read(input), 'ACGT\n');
    });

    it('stop: scancel; the script stops the container; killed, and neither Slurm job nor container is left', async () => {
      // trap '' TERM: the command ignores SIGTERM, so only the script's stop (SIGKILL after the grace period) ends it.
      const spec = await inImage("trap '' TERM; sleep 300");
      const controller = new AbortController();
      let id = '';
      const running = executor.run(spec, controller.signal, { onStarted: (info) => (id = info.externalId ?? '') });
      await until('the job to be submitted', () => id || undefined);
      await until('the container to run', () => (gdflowContainers('podman', spec.jobId).length > 0 ? true : undefined));
      controller.abort();
      const result = await running;
      assert.equal(result.outcome, 'killed');
      assert.equal(result.reason, 'stopped');
      assert.ok(!cluster.queued().includes(id), `Slurm job ${id} is still in the queue`);
      await until('the container to be gone', () => (gdflowContainers('podman', spec.jobId).length === 0 ? true : undefined), 15_000);
    });

    it("a job over its memory limit fails as out of memory (the container's limit)", async () => {
      const result = await executor.run(await inImage(`x=$(head -c 419430400 /dev/zero | tr '\\0' a); echo survived`, { memMb: 64 }), never());
      assert.equal(result.outcome, 'out_of_memory');
      assert.match(result.reason, /^out of memory: exceeded the 64 MB limit/);
    });

    it("an image the node does not have, and may not pull: failed, with the runtime's word", async () => {
      const picky = new SlurmExecutor({ wrap: 'podman', pollMs: 100, queueMs: 1000, container: { pullPolicy: 'never' } });
      try {
        const result = await picky.run(await inImage('true', { image: 'localhost/gdflow-no-such-image:1' }), never());
        assert.equal(result.outcome, 'failed');
        assert.match(result.reason, /^could not start the container \(exit code 125\): .*(no such image|not known|unknown)/i);
      } finally {
        await picky.close();
      }
    });

    it('a tool that names no image runs the bwrap way', async () => {
      const spec = await newJob('pwd');
      const result = await executor.run(spec, never());
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.equal(await read(spec.stdoutLog), '/var/data\n');
      assert.equal(result.memoryEnforcement, 'slurm');
    });
  });

  describe('adoption: the Slurm job outlives the executor that submitted it', () => {
    it('another executor adopts a running job by its id and sees it to its end (the same Slurm job)', async () => {
      const first = new SlurmExecutor({ wrap: 'host', pollMs: 100, queueMs: 1000 });
      const spec = await newJob('sleep 3; echo done');
      const controller = new AbortController();
      let id = '';
      const abandoned = first.run(spec, controller.signal, { onStarted: (info) => (id = info.externalId ?? '') });
      await until('the job to be submitted', () => id || undefined);
      // The first worker goes away without cancelling: close() stops its polling; its run never resolves.
      await first.close();
      void abandoned;
      const second = new SlurmExecutor({ wrap: 'host', pollMs: 100, queueMs: 1000 });
      try {
        const result = await second.adopt(id, spec, never());
        assert.equal(result.outcome, 'succeeded', result.reason);
        assert.equal(await read(spec.stdoutLog), 'done\n');
      } finally {
        await second.close();
      }
    });

    it('a job that ended while no worker watched gets its true end from its status file', async () => {
      const first = new SlurmExecutor({ wrap: 'host', pollMs: 100, queueMs: 1000 });
      const spec = await newJob('exit 7');
      let id = '';
      void first.run(spec, never(), { onStarted: (info) => (id = info.externalId ?? '') });
      await until('the job to be submitted', () => id || undefined);
      await first.close();
      await until('the job to end', () => !cluster.queued().includes(id) || undefined);
      const second = new SlurmExecutor({ wrap: 'host', pollMs: 100, queueMs: 1000 });
      try {
        const result = await second.adopt(id, spec, never());
        assert.equal(result.outcome, 'failed');
        assert.equal(result.exitCode, 7);
      } finally {
        await second.close();
      }
    });

    it("an id that is not this job's Slurm job is lost (the engine runs the job again)", async () => {
      const executor = new SlurmExecutor({ wrap: 'host', pollMs: 100, queueMs: 1000, lostAfterPolls: 2 });
      try {
        const other = await newJob('sleep 2');
        let id = '';
        const running = executor.run(other, never(), { onStarted: (info) => (id = info.externalId ?? '') });
        await until('the job to be submitted', () => id || undefined);
        const spec = await newJob('true');
        assert.equal((await executor.adopt(id, spec, never())).outcome, 'lost');
        assert.equal((await executor.adopt('999999', spec, never())).outcome, 'lost');
        assert.equal((await executor.adopt('not-an-id', spec, never())).outcome, 'lost');
        await running;
      } finally {
        await executor.close();
      }
    });
  });

  it('a job that gives up waiting for a turn under the queue cap does not take the turn of the next', async () => {
    const executor = new SlurmExecutor({ wrap: 'host', pollMs: 100, queueMs: 1000, maxQueued: 1 });
    try {
      // Each job asks for its turn only once the one before holds its place (each run prepares its files first, so
      // starting them together would leave the order to chance): the first holds the only turn until released, the
      // second waits for it, the third waits behind the second.
      const release = join(base, 'release-turn');
      let firstSubmitted = false;
      const waiting = { second: false, third: false };
      const first = executor.run(await newJob(holdUntil(release)), never(), { onStarted: () => (firstSubmitted = true) });
      await until('the first job to be submitted', () => firstSubmitted);
      const giveUp = new AbortController();
      const second = executor.run(await newJob('true'), giveUp.signal, { onWaiting: () => (waiting.second = true) });
      await until('the second job to wait for its turn', () => waiting.second);
      const third = executor.run(await newJob('echo third'), never(), { onWaiting: () => (waiting.third = true) });
      await until('the third job to wait for its turn', () => waiting.third);
      giveUp.abort();
      assert.equal((await second).outcome, 'killed', 'stopped before it was submitted');
      await writeFile(release, '');
      assert.equal((await first).outcome, 'succeeded');
      assert.equal((await third).outcome, 'succeeded', 'the third job got its turn');
      assert.equal(executor.calls, 2, 'two sbatch calls: the stopped job was never submitted');
    } finally {
      await executor.close();
    }
  });

  it('one squeue per poll for all jobs, and the queue cap holds back submissions', async () => {
    const executor = new SlurmExecutor({ wrap: 'host', queueMs: 500, maxQueued: 4 });
    try {
      const specs = await Promise.all(Array.from({ length: 12 }, () => newJob('sleep 1')));
      let most = 0;
      let submitted = 0;
      let ended = 0;
      const began = Date.now();
      const results = await Promise.all(
        specs.map((spec) => executor.run(spec, never(), { onStarted: () => (most = Math.max(most, ++submitted - ended)) }).finally(() => ended++)),
      );
      assert.ok(results.every((r) => r.outcome === 'succeeded'));
      assert.ok(most <= 4, `at most 4 jobs in Slurm's queue at once (saw ${most})`);
      // One squeue per 500 ms for all jobs, however long Slurm took on this machine to run them (asking job by job,
      // 4 in the queue at a time, would be up to 4 per interval). The poller waits a whole interval before each call.
      const elapsed = Date.now() - began;
      const polls = executor.poller.calls;
      assert.ok(polls <= Math.floor(elapsed / 500) + 1, `${polls} squeue calls for 12 jobs in ${elapsed} ms: more than one per 500 ms`);
      assert.equal(executor.calls, 12, 'one sbatch per job, no scancel');
    } finally {
      await executor.close();
    }
  });

  it("says why a submitted job is pending (squeue's reason), and that a job waits for a turn under the queue cap", async () => {
    const executor = new SlurmExecutor({ wrap: 'host', pollMs: 100, queueMs: 500, maxQueued: 2 });
    try {
      // The node has 2 CPUs: while `one` runs, `two` (2 CPUs) cannot start; `three` waits for a place in the queue.
      // Each asks for its turn once the one before holds its place (each run prepares its files first, so starting
      // them together would leave the order to chance: seen in CI, where `three` went first), and `one` runs until
      // the test has seen both waits (a fixed run time would leave seeing them to the load of the machine).
      const release = join(base, 'release-one');
      const waits: Record<string, Array<string | null>> = { one: [], two: [], three: [] };
      const ids: Record<string, string> = {};
      const run = async (name: string, command: string, cpu: number) =>
        executor.run(await newJob(command, { cpu }), never(), {
          onStarted: (info) => (ids[name] = info.externalId ?? ''),
          onWaiting: (what) => waits[name]!.push(what),
        });
      const resources = 'waiting for Slurm to start it: Resources (no node has the free CPUs or memory it asks for yet)';
      const one = run('one', holdUntil(release), 1);
      await until('one to run on the node', () => ids.one !== undefined && cluster.state(ids.one) === 'RUNNING');
      const two = run('two', 'true', 2);
      await until('two to be submitted', () => ids.two);
      const three = run('three', 'true', 1);
      await until('two to be pending for resources', () => waits.two!.includes(resources));
      await until('three to wait for its turn', () => waits.three!.length > 0);
      await writeFile(release, '');
      for (const result of await Promise.all([one, two, three])) assert.equal(result.outcome, 'succeeded', result.reason);
      assert.ok(waits.two!.includes(resources), `two was pending for resources: ${JSON.stringify(waits.two)}`);
      assert.equal(waits.two!.at(-1), null, 'and then no more');
      assert.equal(waits.three![0], "waiting for its turn to be submitted to Slurm (this worker has 2 jobs in Slurm's queue, its --slurm-max-queued)");
      assert.ok(!waits.one!.some((w) => w !== null && /Resources/.test(w)), `one never waited for resources: ${JSON.stringify(waits.one)}`);
    } finally {
      await executor.close();
    }
  });
});
