/**
 * The container executors' own cases, with real podman (and docker where a daemon runs): the image's file
 * system, limits, names, images and digests, leftovers, and adoption of a container whose worker died. The cases
 * every executor shares are in executor.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createExecutor, type Executor, type JobResult, type RunSpec } from '../../src/engine/executors/index.js';
import { containerName } from '../../src/engine/executors/container/run-args.js';
import {
  CONTAINER_KINDS,
  containerState,
  ensureTinyImage,
  gdflowContainers,
  imageDigest,
  skipWithoutRuntime,
  TINY_IMAGE,
  type ContainerKind,
} from '../helpers/containers.js';
import { repoRoot } from '../helpers/paths.js';
import { liveProcesses } from '../helpers/processes.js';

let base: string;
let counter = 0;
before(async () => {
  base = await mkdtemp(join(tmpdir(), 'gdflow-container-test-'));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

const never = (): AbortSignal => new AbortController().signal;
const read = (path: string): Promise<string> => readFile(path, 'utf8');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** A fresh job in the tiny image; the job id is unique to this test process. */
async function job(command: string, extra: Partial<RunSpec> = {}): Promise<RunSpec & { dir: string }> {
  const n = ++counter;
  const dir = join(base, `job${n}`);
  await mkdir(dir, { recursive: true });
  return {
    dir,
    jobId: `ctest${process.pid}x${n}`,
    workDir: join(dir, 'work'),
    command,
    mounts: [],
    stdoutLog: join(dir, 'logs', 'stdout.log'),
    stderrLog: join(dir, 'logs', 'stderr.log'),
    cpu: 1,
    memMb: 256,
    network: false,
    timeoutSeconds: 0,
    image: TINY_IMAGE,
    ...extra,
  };
}

/** Run a job with hooks recorded. */
async function runRecorded(executor: Executor, spec: RunSpec, signal = never()) {
  const started: Array<{ pid?: number; externalId?: string; imageDigest?: string }> = [];
  const result = await executor.run(spec, signal, { onStarted: (info) => started.push(info) });
  return { result, started };
}

/** `node run-job.js`: a worker in miniature running `spec`, to be SIGKILLed mid-job (helpers/run-job.ts). */
function startWorker(kind: ContainerKind, spec: RunSpec) {
  const script = join(repoRoot(), 'dist', 'test', 'helpers', 'run-job.js');
  const child = spawn(process.execPath, [script, kind, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const started = new Promise<{ externalId: string; digest: string }>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /^started (\S+) (\S+)$/m.exec(output);
      if (match) resolve({ externalId: match[1]!, digest: match[2]! });
    });
    child.once('exit', () => reject(new Error(`the worker ended before its job started: ${output}`)));
  });
  const killed = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  return { started, killed };
}

for (const kind of CONTAINER_KINDS) {
  describe(`container executor: ${kind}`, { timeout: 180_000, skip: skipWithoutRuntime(kind) }, () => {
    const executor = createExecutor(kind, { killGraceMs: 1000 });
    before(async () => {
      ensureTinyImage(kind);
      await executor.check();
    });
    after(async () => executor.close?.());

    it("the job sees the image's file system, not the host's", async () => {
      const spec = await job('cat /etc/os-release; [ -e /usr/bin/apt ] && echo has-apt || echo no-apt; [ -e /work ] && echo has-work || echo no-work');
      const { result } = await runRecorded(executor, spec);
      assert.equal(result.outcome, 'succeeded', result.reason);
      const out = await read(spec.stdoutLog);
      assert.match(out, /^ID=gdflow-tiny$/m);
      assert.notEqual(out.split('no-apt')[0], await read('/etc/os-release'), "not the host's /etc/os-release");
      assert.match(out, /^no-apt$/m, 'the host has apt, the image does not');
      assert.match(out, /^no-work$/m, "the host's directories are not there");
    });

    it('reports the container name and the digest of the image as resolved for the run', async () => {
      const spec = await job('echo hi');
      const { result, started } = await runRecorded(executor, spec);
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.deepEqual(started, [{ externalId: `gdflow-${spec.jobId}`, imageDigest: imageDigest(kind, TINY_IMAGE) }]);
      assert.match(started[0]!.imageDigest, /^sha256:[0-9a-f]{64}$/);
    });

    it('names the container after the job and removes it when the job ends, whatever the end', async () => {
      const running = await job('echo started; sleep 2');
      const pending = executor.run(running, never());
      await until('the container runs', async () => (await read(running.stdoutLog).catch(() => '')).includes('started'));
      assert.equal(containerState(kind, containerName(running.jobId))?.status, 'running');
      assert.equal((await pending).outcome, 'succeeded');
      const failing = await job('exit 4');
      assert.equal((await executor.run(failing, never())).reason, 'exit code 4');
      assert.deepEqual(gdflowContainers(kind, running.jobId), []);
      assert.deepEqual(gdflowContainers(kind, failing.jobId), []);
    });

    it('stop kills and removes the container: nothing is left', async () => {
      const marker = `71${process.pid}`;
      const spec = await job(`setsid sleep ${marker} & echo started; sleep ${marker}`);
      const ac = new AbortController();
      const pending = executor.run(spec, ac.signal);
      await until('the job runs', async () => (await read(spec.stdoutLog).catch(() => '')).includes('started'));
      ac.abort();
      const result = await pending;
      assert.equal(result.outcome, 'killed');
      assert.deepEqual(gdflowContainers(kind, spec.jobId), [], 'no container left');
      assert.deepEqual(await liveProcesses((cmdline) => cmdline.includes(`sleep ${marker}`)), [], 'no process left');
    });

    it('no network unless the tool asks for it', async () => {
      const off = await job('cat /proc/net/dev');
      assert.equal((await executor.run(off, never())).outcome, 'succeeded');
      const interfaces = (text: string) =>
        text
          .split('\n')
          .slice(2)
          .filter((l) => l.includes(':'))
          .map((l) => l.split(':')[0]!.trim())
          .sort();
      assert.deepEqual(interfaces(await read(off.stdoutLog)), ['lo']);
      const on = await job('cat /proc/net/dev', { network: true });
      assert.equal((await executor.run(on, never())).outcome, 'succeeded');
      assert.ok(interfaces(await read(on.stdoutLog)).length > 1, `an interface besides lo: ${interfaces(await read(on.stdoutLog)).join(', ')}`);
    });

    it("the tool's memory and cpu are the container's limits", async () => {
      const spec = await job(
        'cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max; ' +
          'cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null || cat /sys/fs/cgroup/cpu.max',
        { memMb: 96, cpu: 2 },
      );
      const { result } = await runRecorded(executor, spec);
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.equal(result.memoryEnforcement, 'container');
      const numbers = (await read(spec.stdoutLog)).split(/\s+/).filter(Boolean).map(Number);
      assert.equal(numbers[0], 96 * 1024 * 1024);
      assert.equal(numbers[1]! / numbers[2]!, 2, 'a quota of two cpus');
    });

    it('a job over its memory limit fails as out of memory; what told so is removed with the container', async () => {
      const spec = await job(`x=$(head -c 419430400 /dev/zero | tr '\\0' a); echo survived`, { memMb: 64 });
      const { result } = await runRecorded(executor, spec);
      assert.equal(result.outcome, 'out_of_memory');
      assert.match(result.reason, /^out of memory: exceeded the 64 MB limit \(killed by SIGKILL \(exit code 137\)\)$/);
      assert.equal(await read(spec.stdoutLog), '');
      assert.deepEqual((await readdir(join(spec.dir, 'logs'))).sort(), ['stderr.log', 'stdout.log'], 'only the logs are left');
      assert.equal(existsSync(join(process.cwd(), 'oom')), false, "nothing in the server's working directory");
    });

    it("files the job writes belong to the server's user", async () => {
      const spec = await job('mkdir -p sub && echo x > sub/out.txt');
      assert.equal((await executor.run(spec, never())).outcome, 'succeeded');
      const st = await stat(join(spec.workDir, 'sub', 'out.txt'));
      assert.equal(st.uid, process.getuid!());
      assert.equal(st.gid, process.getgid!());
    });

    it('binds inputs whose host paths hold commas, quotes, colons and blanks', async () => {
      const odd = join(base, `in ,"q" 'a':b ${counter}.txt`);
      await writeFile(odd, 'odd name\n');
      const spec = await job('cat /var/data/inputs/in.txt', { mounts: [{ hostPath: odd, sandboxPath: '/var/data/inputs/in.txt', readOnly: true }] });
      const { result } = await runRecorded(executor, spec);
      assert.equal(result.outcome, 'succeeded', `${result.reason}: ${await read(spec.stderrLog)}`);
      assert.equal(await read(spec.stdoutLog), 'odd name\n');
    });

    it('an image that is not here and cannot be pulled fails the job at once, naming the image and the error', async () => {
      const absent = 'localhost/gdflow-absent-image:1';
      const never_ = createExecutor(kind, { pullPolicy: 'never' });
      await never_.check();
      const refused = await runRecorded(never_, await job('true', { image: absent }));
      assert.equal(refused.result.outcome, 'failed');
      assert.equal(refused.result.reason, `image ${absent} is not present here, and the pull policy is "never"`);
      assert.deepEqual(refused.started, [], 'nothing started');

      const spec = await job('true', { image: absent });
      const missing = await runRecorded(executor, spec);
      assert.equal(missing.result.outcome, 'failed');
      assert.match(missing.result.reason, new RegExp(`^image ${absent} could not be pulled: .+`));
      assert.equal(missing.result.exitCode, null);
      assert.deepEqual(missing.started, []);
      assert.deepEqual(gdflowContainers(kind, spec.jobId), []);
    });

    it('pull policy always pulls even an image that is here (the tiny image has no registry: it fails)', async () => {
      const always = createExecutor(kind, { pullPolicy: 'always' });
      await always.check();
      const { result } = await runRecorded(always, await job('true'));
      assert.equal(result.outcome, 'failed');
      assert.match(result.reason, new RegExp(`^image ${TINY_IMAGE} could not be pulled: `));
    });

    it('refuses an image reference that is not one', async () => {
      const { result } = await runRecorded(executor, await job('true', { image: '--privileged' }));
      assert.equal(result.outcome, 'failed');
      assert.match(result.reason, /is not a valid image reference/);
    });

    it('a container left by an earlier attempt of the job is removed before the job runs again', async () => {
      const spec = await job('echo second attempt');
      const marker = `72${process.pid}`;
      const left = spawnSync(
        kind,
        [
          'run',
          '--detach',
          '--name',
          containerName(spec.jobId),
          '--label',
          `gdflow.job=${spec.jobId}`,
          '--network',
          'none',
          ...(kind === 'podman' ? ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'] : []),
          TINY_IMAGE,
          'sleep',
          marker,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(left.status, 0, left.stderr);
      const { result } = await runRecorded(executor, spec);
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.equal(await read(spec.stdoutLog), 'second attempt\n');
      assert.deepEqual(await liveProcesses((cmdline) => cmdline.includes(`sleep ${marker}`)), [], "the earlier attempt's process is gone");
      assert.deepEqual(gdflowContainers(kind, spec.jobId), []);
    });

    it('a job whose tool names no image runs on the host sandbox (bwrap)', async () => {
      const spec = await job('cat /etc/os-release', { image: '' });
      const { result, started } = await runRecorded(executor, spec);
      assert.equal(result.outcome, 'succeeded', result.reason);
      assert.equal(await read(spec.stdoutLog), await read('/etc/os-release'), "the host's file system, read-only");
      assert.equal(started.length, 1);
      assert.equal(started[0]!.externalId, undefined, 'nothing to adopt later');
      assert.equal(started[0]!.imageDigest, undefined);
    });

    describe('adoption: the container outlives the worker that started it', () => {
      it('keeps running when its worker is SIGKILLed; adopt waits for it (the same container, not a new one)', async () => {
        // Long enough to be still running after the worker's start, kill and an inspect on a loaded machine.
        const spec = await job('echo started; sleep 6; echo done > out.txt; echo finished');
        const worker = startWorker(kind, spec);
        const { externalId, digest } = await worker.started;
        assert.equal(digest, imageDigest(kind, TINY_IMAGE));
        const before = containerState(kind, externalId);
        await worker.killed();
        assert.equal(containerState(kind, externalId)?.status, 'running', 'the container still runs');
        const result = await executor.adopt!(externalId, spec, never());
        assert.equal(result.outcome, 'succeeded', result.reason);
        assert.equal(await read(join(spec.workDir, 'out.txt')), 'done\n');
        assert.equal(await read(spec.stdoutLog), 'started\nfinished\n', 'the command ran once');
        assert.ok(before, 'the container was there before the kill');
        assert.equal(containerState(kind, externalId), undefined, 'removed after its end');
      });

      it('reports the end of a container that ended while no worker watched it', async () => {
        const spec = await job('echo started; sleep 1; exit 3');
        const worker = startWorker(kind, spec);
        const { externalId } = await worker.started;
        await worker.killed();
        // The runtime removes it when it ends: its script's status file is what is left of it.
        await until('the container has ended and is gone', () => containerState(kind, externalId) === undefined);
        const result = await executor.adopt!(externalId, spec, never());
        assert.equal(result.outcome, 'failed');
        assert.equal(result.exitCode, 3);
        assert.equal(result.reason, 'exit code 3');
        assert.deepEqual(gdflowContainers(kind, spec.jobId), []);
      });

      it('the timeout counts from the start of the container, and abort kills and removes an adopted one', async () => {
        const timed = await job('echo started; sleep 30', { timeoutSeconds: 2 });
        const first = startWorker(kind, timed);
        const { externalId } = await first.started;
        await first.killed();
        const result = await executor.adopt!(externalId, timed, never());
        assert.equal(result.outcome, 'timed_out');
        assert.equal(containerState(kind, externalId), undefined);

        const stopped = await job('echo started; sleep 30');
        const second = startWorker(kind, stopped);
        const handle = (await second.started).externalId;
        await second.killed();
        const ac = new AbortController();
        const adopted = executor.adopt!(handle, stopped, ac.signal);
        await sleep(300);
        ac.abort();
        assert.equal((await adopted).outcome, 'killed');
        assert.equal(containerState(kind, handle), undefined);
      });

      it("a container that is gone, or not this job's, is lost: the engine runs the job again", async () => {
        const spec = await job('true');
        const gone: JobResult = await executor.adopt!(containerName(spec.jobId), spec, never());
        assert.equal(gone.outcome, 'lost');
        assert.match(gone.reason, /gone/);
        const foreign = await executor.adopt!('not a container name', spec, never());
        assert.equal(foreign.outcome, 'lost');
      });
    });
  });
}
