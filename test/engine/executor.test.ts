/**
 * Contract tests for the executors, run against real processes, files and containers: every case runs for the
 * bwrap and the host executor, with both launchers (the native one when it has been built, see launcher.test.ts,
 * and the Node one), and for the podman and docker executors (jobs in the tiny busybox image), unless it tests
 * what only some of them provide (those say so when skipped). The container executors' own cases (images,
 * adoption) are in container.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { discoverCgroupV1 } from '../../src/engine/executors/process/tracking/cgroup.js';
import { createExecutor, type Executor, type RunSpec } from '../../src/engine/executors/index.js';
import { defaultLauncherKind, type LauncherKind } from '../../src/engine/executors/process/launcher/launcher.js';
import { CONTAINER_KINDS, DEMO_IMAGE, ensureTinyImage, hasImage, skipWithoutRuntime, TINY_IMAGE, type ContainerKind } from '../helpers/containers.js';
import { ancestorMatching, liveProcesses } from '../helpers/processes.js';

type Kind = 'bwrap' | 'host' | ContainerKind;
const LAUNCHERS: LauncherKind[] = defaultLauncherKind() === 'native' ? ['native', 'node'] : ['node'];
/** Every executor, the process ones once per launcher; a container executor that cannot run here is skipped. */
const VARIANTS: Array<{ kind: Kind; launcher?: LauncherKind; skip?: string | undefined }> = [
  ...(['bwrap', 'host'] as const).flatMap((kind) => LAUNCHERS.map((launcher) => ({ kind, launcher }))),
  ...CONTAINER_KINDS.map((kind) => ({ kind, skip: skipWithoutRuntime(kind) })),
];
const isContainer = (kind: Kind): kind is ContainerKind => kind === 'podman' || kind === 'docker';
/** What the launcher's command line contains. */
const LAUNCHER_PROGRAM: Record<LauncherKind, string> = { native: 'gdflow-spawn', node: 'launcher-child.js' };

let base: string;
let counter = 0;
before(async () => {
  base = await mkdtemp(join(tmpdir(), 'gdflow-executor-test-'));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A fresh job directory and spec. */
async function newJob(command: string, extra: Partial<RunSpec> = {}): Promise<RunSpec & { dir: string }> {
  const n = ++counter;
  const dir = join(base, `job${n}`);
  await mkdir(dir, { recursive: true });
  return {
    dir,
    jobId: `job${n}`,
    workDir: join(dir, 'work'),
    command,
    mounts: [],
    stdoutLog: join(dir, 'logs', 'stdout.log'),
    stderrLog: join(dir, 'logs', 'stderr.log'),
    cpu: 1,
    memMb: 512,
    network: false,
    timeoutSeconds: 0,
    ...extra,
  };
}

const never = (): AbortSignal => new AbortController().signal;
const read = (path: string): Promise<string> => readFile(path, 'utf8');

/** Live processes whose command line contains `marker` (shells that run it included). */
const processesMatching = (marker: string): Promise<number[]> => liveProcesses((cmdline) => cmdline.includes(marker));

/** A number unique to this test process, kind and case, used as a sleep duration to find the job's sleeps. */
const sleepMarker = (kind: Kind, n: number): string => `9${['bwrap', 'host', 'podman', 'docker'].indexOf(kind) + 1}${n}${process.pid}`;

async function waitForFile(path: string, text: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const content = await readFile(path, 'utf8').catch(() => '');
    if (content.includes(text)) return;
    if (Date.now() > deadline) throw new Error(`"${text}" did not appear in ${path}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// GDFLOW_TEST_NO_CGROUPS=1 runs the contract without cgroup v1 groups (what a non-root server gets);
// GDFLOW_TEST_PROC_SCAN=1 also finds job processes by scans of /proc, as on a kernel without children files
const noCgroups = Boolean(process.env.GDFLOW_TEST_NO_CGROUPS);
const procScan = Boolean(process.env.GDFLOW_TEST_PROC_SCAN);
const cgroupMemory = !noCgroups && (await discoverCgroupV1()).memory !== undefined;

for (const { kind, launcher: launcherKind = 'node', skip } of VARIANTS) {
  const container = isContainer(kind);
  const isolated = kind !== 'host';
  const onlyIsolated = (why: string): { skip: string | false } => ({ skip: isolated ? false : `host executor: ${why}` });
  const onlyBwrap = (why: string): { skip: string | false } => ({ skip: kind === 'bwrap' ? false : `${kind} executor: ${why}` });
  /** Cases about the launcher, job processes of the server's own making, or options of the process executors. */
  const processesOnly = (why: string): { skip: string | false } => ({ skip: container ? `${kind} executor: ${why}` : false });
  /** A command connecting to host:port (bash's /dev/tcp on the host; busybox nc in the tiny image). */
  const connect = (host: string, port: number) => (container ? `echo hi | nc -w 2 ${host} ${port}` : `bash -c 'echo hi > /dev/tcp/${host}/${port}'`);
  /** A command that takes 400 MB and holds it (the tiny image has no perl: its shell holds a 400 MB string). */
  const allocate = (seconds: number) =>
    container ? `x=$(head -c 419430400 /dev/zero | tr '\\0' a); sleep ${seconds}` : `perl -e '$x = "a" x (400*1024*1024); sleep ${seconds}'`;
  const title = container ? `executor contract: ${kind}` : `executor contract: ${kind}, ${launcherKind} launcher`;

  describe(title, { timeout: 120_000, skip }, () => {
    const executor: Executor = container
      ? createExecutor(kind, { killGraceMs: 2000 })
      : createExecutor(kind, {
          killGraceMs: 2000,
          sampleIntervalMs: 200,
          launcher: launcherKind,
          ...(noCgroups ? { cgroups: false } : {}),
          ...(procScan ? { processTracking: 'scan' as const } : {}),
        });
    /** A job for this executor: in the tiny image for a container executor. */
    const job = (command: string, extra: Partial<RunSpec> = {}) => newJob(command, { ...(container ? { image: TINY_IMAGE } : {}), ...extra });
    if (container) before(() => ensureTinyImage(kind));

    it('check() passes on this machine and capabilities are declared', async () => {
      await executor.check();
      assert.equal(executor.name, kind);
      assert.deepEqual(executor.capabilities, { sandbox: isolated, network_isolation: isolated });
    });

    it('exit 0 → succeeded', async () => {
      const spec = await job('true');
      const before = Date.now() / 1000;
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'succeeded');
      assert.equal(r.exitCode, 0);
      assert.equal(r.signal, null);
      assert.ok(r.startedAt >= before - 0.01 && r.endedAt >= r.startedAt && r.endedAt <= Date.now() / 1000 + 0.01);
    });

    it('onStarted: called once, with the first pid (a container: its name), before run resolves, for a job that started (even one that fails)', async () => {
      for (const command of ['true', 'exit 3']) {
        const calls: Array<{ pid?: number; externalId?: string; runSettled: boolean }> = [];
        let settled = false;
        const r = await executor
          .run(await job(command), never(), { onStarted: (info) => calls.push({ ...info, runSettled: settled }) })
          .finally(() => (settled = true));
        assert.equal(r.outcome, command === 'true' ? 'succeeded' : 'failed');
        assert.equal(calls.length, 1, command);
        if (container) assert.match(calls[0]!.externalId ?? '', /^gdflow-/);
        else assert.ok(typeof calls[0]!.pid === 'number' && calls[0]!.pid > 1, `a pid: ${calls[0]!.pid}`);
        assert.equal(calls[0]!.runSettled, false);
      }
    });

    it('onStarted: not called for a job that does not start (aborted before, an exec that fails, a log file that cannot be opened)', async () => {
      let calls = 0;
      const hooks = { onStarted: () => void calls++ };
      const ac = new AbortController();
      ac.abort();
      assert.equal((await executor.run(await job('true'), ac.signal, hooks)).outcome, 'killed');
      // One environment entry over the kernel's 128 KiB limit per string: the exec fails with E2BIG.
      const tooBig = await executor.run(await job('true', { env: { BIG: 'x'.repeat(200_000) } }), never(), hooks);
      assert.equal(tooBig.outcome, 'failed');
      // Process executors: the kernel refuses the exec; container runtimes refuse the environment before that.
      assert.match(tooBig.reason, container ? /^could not start/ : /^could not start: .*(E2BIG|Argument list too long)/);
      const spec = await job('echo should-not-run');
      await mkdir(join(spec.dir, 'logs'), { recursive: true });
      await symlink(join(spec.dir, 'elsewhere'), spec.stdoutLog);
      await assert.rejects(executor.run(spec, never(), hooks), /ELOOP|symbolic link/);
      assert.equal(calls, 0);
    });

    it('exit 3 → failed with "exit code 3"', async () => {
      const r = await executor.run(await job('exit 3'), never());
      assert.equal(r.outcome, 'failed');
      assert.equal(r.exitCode, 3);
      assert.equal(r.reason, 'exit code 3');
    });

    it('a command killed by a signal → failed, "killed by SIGSEGV"', async () => {
      const r = await executor.run(await job('kill -SEGV $$'), never());
      assert.equal(r.outcome, 'failed');
      assert.equal(r.signal, 'SIGSEGV');
      assert.match(r.reason, /^killed by SIGSEGV/);
    });

    it('stdout and stderr go to the (truncated) log files', async () => {
      const spec = await job('echo to-out; echo to-err >&2; printf "line2\\n"');
      await mkdir(join(spec.dir, 'logs'), { recursive: true });
      await writeFile(spec.stdoutLog, 'old content that must disappear\n'.repeat(10));
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'succeeded');
      assert.equal(await read(spec.stdoutLog), 'to-out\nline2\n');
      assert.equal(await read(spec.stderrLog), 'to-err\n');
    });

    it('a log file path through a planted symlink is refused; the symlink target is not touched', async () => {
      const spec = await job('echo should-not-run');
      const target = join(spec.dir, 'host-file');
      await writeFile(target, 'precious\n');
      await mkdir(join(spec.dir, 'logs'), { recursive: true });
      await symlink(target, spec.stdoutLog);
      await assert.rejects(executor.run(spec, never()), /ELOOP|symbolic link/);
      assert.equal(await read(target), 'precious\n');
    });

    it(
      'the job is a child of the launcher process, never of the server, and sits in its own process group',
      processesOnly('the runtime starts the container, which outlives the server (container.test.ts)'),
      async () => {
        const spec = await job('echo "$$ $PPID" > ids; cut -d " " -f 5 /proc/$$/stat > pgid');
        const r = await executor.run(spec, never());
        assert.equal(r.outcome, 'succeeded', r.reason);
        if (!isolated) {
          const [pid, ppid] = (await read(join(spec.workDir, 'ids'))).trim().split(' ').map(Number);
          assert.notEqual(ppid, process.pid, 'not forked by the server');
          assert.ok((await read(`/proc/${ppid}/cmdline`)).includes(LAUNCHER_PROGRAM[launcherKind]), 'started by the launcher');
          assert.equal(Number((await read(join(spec.workDir, 'pgid'))).trim()), pid, 'its own process group');
        }
      },
    );

    it(
      "with cgroups, the first process of the job is in the job's memory and cpu groups (under the jobs' shared parent), and its launcher in neither",
      {
        skip: isolated
          ? `${kind}: the job has its own cgroup namespace, so it sees its group as /`
          : !cgroupMemory
            ? 'no writable cgroup v1 hierarchy here'
            : false,
      },
      async () => {
        const spec = await job('cat /proc/$$/cgroup > cgroups; echo $PPID > ppid', { memMb: 64 });
        const r = await executor.run(spec, never());
        assert.equal(r.outcome, 'succeeded', r.reason);
        const lines = (await read(join(spec.workDir, 'cgroups'))).split('\n');
        const group = (controller: string) => lines.find((l) => l.split(':')[1]?.split(',').includes(controller))?.split(':')[2] ?? '';
        assert.match(group('memory'), /\/gdflow-jobs\/gdflow-[^/]+$/);
        assert.match(group('cpu'), /\/gdflow-jobs\/gdflow-[^/]+$/);
        const launcherGroups = await read(`/proc/${(await read(join(spec.workDir, 'ppid'))).trim()}/cgroup`).catch(() => '');
        assert.doesNotMatch(launcherGroups, /gdflow-/, 'the launcher is not left in a job group');
      },
    );

    it(
      'when the launcher dies mid-job, the job fails with a reason, its processes end, and the next job runs',
      processesOnly('no launcher: a container keeps running when its worker dies, and is adopted (container.test.ts)'),
      async () => {
        const marker = sleepMarker(kind, 5);
        const spec = await job(`echo started; sleep ${marker}`);
        const running = executor.run(spec, never());
        await waitForFile(spec.stdoutLog, 'started');
        const [sleepPid] = await processesMatching(`sleep ${marker}`);
        assert.ok(sleepPid, 'the job runs');
        const launcher = await ancestorMatching(sleepPid, LAUNCHER_PROGRAM[launcherKind]);
        assert.ok(launcher, 'the launcher is an ancestor of the job');
        process.kill(launcher, 'SIGKILL');
        const r = await running;
        assert.equal(r.outcome, 'failed');
        assert.match(r.reason, /launcher exited/);
        assert.deepEqual(await processesMatching(`sleep ${marker}`), [], 'nothing of the job survives');
        const next = await executor.run(await job('echo again'), never());
        assert.equal(next.outcome, 'succeeded', next.reason);
      },
    );

    it('the working directory is /var/data and files written there appear in workDir', async () => {
      const spec = await job('pwd > where.txt; echo hello > made.txt; mkdir -p sub && echo deep > /var/data/sub/file.txt; cat /var/data/made.txt');
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'succeeded', r.reason);
      assert.equal(await read(join(spec.workDir, 'made.txt')), 'hello\n');
      assert.equal(await read(join(spec.workDir, 'sub', 'file.txt')), 'deep\n');
      assert.equal(await read(spec.stdoutLog), 'hello\n');
      // bwrap shows the sandbox path; the host executor runs in workDir itself
      assert.equal((await read(join(spec.workDir, 'where.txt'))).trim(), isolated ? '/var/data' : spec.workDir);
    });

    it('mounts: read-only input readable, read-write mount writable', async () => {
      const spec = await job('cat /var/data/inputs/in.txt; echo appended >> /var/data/rw/out.txt');
      const hostIn = join(spec.dir, 'in.txt');
      const rwDir = join(spec.dir, 'rwdir');
      await writeFile(hostIn, 'input content\n');
      await mkdir(rwDir);
      await writeFile(join(rwDir, 'out.txt'), 'first\n');
      spec.mounts = [
        { hostPath: hostIn, sandboxPath: '/var/data/inputs/in.txt', readOnly: true },
        { hostPath: rwDir, sandboxPath: '/var/data/rw', readOnly: false },
      ];
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'succeeded', `${r.reason}: ${await read(spec.stderrLog)}`);
      assert.equal(await read(spec.stdoutLog), 'input content\n');
      assert.equal(await read(join(rwDir, 'out.txt')), 'first\nappended\n');
      // mount points / symlinks made for the run are cleaned up afterwards
      assert.deepEqual(await readdir(spec.workDir), []);
    });

    it('mounts near and far: both readable; directories that were there before the run are left as they were', async () => {
      const spec = await job('cat /var/data/inputs/near/in.txt /var/data/inputs/far/passwd > /var/data/out.txt');
      const hostIn = join(spec.dir, 'in.txt');
      await writeFile(hostIn, 'near\n');
      // The engine makes a job's input directories before it starts; the executor makes the others itself.
      await mkdir(join(spec.workDir, 'inputs', 'near'), { recursive: true });
      spec.mounts = [
        { hostPath: hostIn, sandboxPath: '/var/data/inputs/near/in.txt', readOnly: true },
        { hostPath: '/etc/passwd', sandboxPath: '/var/data/inputs/far/passwd', readOnly: true },
      ];
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'succeeded', `${r.reason}: ${await read(spec.stderrLog)}`);
      assert.equal(await read(join(spec.workDir, 'out.txt')), `near\n${await read('/etc/passwd')}`);
      assert.deepEqual((await readdir(spec.workDir)).sort(), ['inputs', 'out.txt']);
      assert.deepEqual(await readdir(join(spec.workDir, 'inputs')), ['near']);
      assert.deepEqual(await readdir(join(spec.workDir, 'inputs', 'near')), []);
    });

    it(
      'mounts in the inputs area /var/lib/cwl: a tree and a file below it, read-only, nothing left in the working directory',
      onlyIsolated('mounts under /var/data only'),
      async () => {
        const spec = await job('cat /var/lib/cwl/inputs/1/a.txt /var/lib/cwl/inputs/2/in.txt; ls /var/lib/cwl/inputs; echo x > /var/lib/cwl/inputs/1/a.txt');
        const tree = join(spec.dir, 'staging');
        await mkdir(join(tree, 'inputs', '1'), { recursive: true });
        await mkdir(join(tree, 'inputs', '2'));
        await writeFile(join(tree, 'inputs', '1', 'a.txt'), 'literal\n');
        await writeFile(join(tree, 'inputs', '2', 'in.txt'), '');
        const hostIn = join(spec.dir, 'in.txt');
        await writeFile(hostIn, 'bound\n');
        spec.mounts = [
          { hostPath: tree, sandboxPath: '/var/lib/cwl', readOnly: true },
          { hostPath: hostIn, sandboxPath: '/var/lib/cwl/inputs/2/in.txt', readOnly: true },
        ];
        const r = await executor.run(spec, never());
        assert.equal(r.outcome, 'failed', 'the inputs area is read-only');
        assert.equal(await read(spec.stdoutLog), 'literal\nbound\n1\n2\n');
        assert.equal(await read(join(tree, 'inputs', '1', 'a.txt')), 'literal\n');
        assert.deepEqual(await readdir(spec.workDir), []);
      },
    );

    it('a read-only mount cannot be written', onlyIsolated("mounts are symlinks and the job has the server user's rights"), async () => {
      const spec = await job('echo overwritten > /var/data/inputs/in.txt');
      const hostIn = join(spec.dir, 'in.txt');
      await writeFile(hostIn, 'original\n');
      spec.mounts = [{ hostPath: hostIn, sandboxPath: '/var/data/inputs/in.txt', readOnly: true }];
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'failed');
      assert.match(await read(spec.stderrLog), /Read-only file system/);
      assert.equal(await read(hostIn), 'original\n');
    });

    it('files outside /var/data cannot be written', onlyIsolated('no isolation from the host file system'), async () => {
      const marker = `gdflow-test-${process.pid}-${counter}`;
      for (const target of [`/etc/${marker}`, `/usr/${marker}`, `/var/${marker}`]) {
        const r = await executor.run(await job(`echo x > ${target}`), never());
        assert.equal(r.outcome, 'failed', target);
        await assert.rejects(readFile(target), { code: 'ENOENT' });
      }
    });

    it(
      'sensitive host places are hidden (/root, /etc/shadow, hidePaths)',
      onlyBwrap(kind === 'host' ? 'nothing is hidden' : "the job sees the image's file system, none of the host's (container.test.ts)"),
      async () => {
        const hiding = createExecutor('bwrap', { hidePaths: ['/usr/share/doc/bwa'], launcher: launcherKind });
        const spec = await job(
          'ls -A /root | wc -l; cat /etc/shadow >/dev/null 2>&1 && echo shadow-readable; ls /usr/share/doc/bwa/examples 2>&1 | head -1; ls /var',
        );
        const r = await hiding.run(spec, never());
        assert.equal(r.outcome, 'succeeded', r.reason);
        const [rootCount, next, ...rest] = (await read(spec.stdoutLog)).trim().split('\n');
        assert.equal(rootCount, '0');
        assert.notEqual(next, 'shadow-readable');
        assert.match(next ?? '', /No such file/);
        assert.deepEqual(rest.join(' ').split(/\s+/).sort(), ['data', 'tmp']);
      },
    );

    it('environment is cleared: only PATH, HOME, LANG (TMPDIR) and spec.env', async () => {
      process.env.GDFLOW_TEST_SECRET = 'leaked';
      try {
        const spec = await job(
          'echo "[$GDFLOW_TEST_SECRET][$MY_VAR][$HOME][$LANG]"; t="${TMPDIR:-/tmp}/gdflow-$$"; echo tmp-ok > "$t" && cat "$t" && rm "$t"',
          { env: { MY_VAR: 'given' } },
        );
        const r = await executor.run(spec, never());
        assert.equal(r.outcome, 'succeeded', await read(spec.stderrLog));
        const home = isolated ? '/var/data' : spec.workDir;
        assert.equal(await read(spec.stdoutLog), `[][given][${home}][C.UTF-8]\ntmp-ok\n`);
      } finally {
        delete process.env.GDFLOW_TEST_SECRET;
      }
    });

    it('stdin and stdout redirection', async () => {
      const spec = await job('tr a-z A-Z', { stdin: '/var/data/inputs/in.txt', stdout: '/var/data/out/upper.txt' });
      const hostIn = join(spec.dir, 'in.txt');
      await writeFile(hostIn, 'hello stdin\n');
      await mkdir(join(spec.workDir, 'out'), { recursive: true });
      spec.mounts = [{ hostPath: hostIn, sandboxPath: '/var/data/inputs/in.txt', readOnly: true }];
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'succeeded', await read(spec.stderrLog));
      assert.equal(await read(join(spec.workDir, 'out', 'upper.txt')), 'HELLO STDIN\n');
      assert.equal(await read(spec.stdoutLog), '');

      const missing = await executor.run(await job('cat', { stdin: '/var/data/nope.txt' }), never());
      assert.equal(missing.outcome, 'failed');
    });

    it('stdout through a symlink planted in workDir cannot write a host file', onlyIsolated('the job may write any host file anyway'), async () => {
      const spec = await job('echo pwned', { stdout: '/var/data/evil' });
      const victim = join(spec.dir, 'victim.txt');
      await writeFile(victim, 'safe\n');
      await mkdir(spec.workDir, { recursive: true });
      await symlink(victim, join(spec.workDir, 'evil'));
      await executor.run(spec, never());
      assert.equal(await read(victim), 'safe\n');
    });

    it('no network when network=false', onlyIsolated('no network isolation'), async () => {
      const server = await listen();
      try {
        const port = (server.address() as { port: number }).port;
        const spec = await job(`cat /proc/net/dev; ${connect('127.0.0.1', port)} && echo connected`);
        const r = await executor.run(spec, never());
        const out = await read(spec.stdoutLog);
        const interfaces = out
          .split('\n')
          .slice(2)
          .filter((l) => l.includes(':'))
          .map((l) => l.split(':')[0]?.trim());
        assert.deepEqual(interfaces, ['lo']);
        assert.doesNotMatch(out, /connected/);
        assert.equal(r.outcome, 'failed');
      } finally {
        server.close();
      }
    });

    it('network works when network=true', async () => {
      // A container is on the runtime's own network: it reaches the host through its gateway, not on 127.0.0.1.
      const server = await listen(container ? '0.0.0.0' : '127.0.0.1');
      try {
        const port = (server.address() as { port: number }).port;
        const host = container ? "$(ip route | awk '/^default/ {print $3}')" : '127.0.0.1';
        const spec = await job(`${connect(host, port)} && echo connected`, { network: true });
        const r = await executor.run(spec, never());
        assert.equal(r.outcome, 'succeeded', await read(spec.stderrLog));
        assert.equal(await read(spec.stdoutLog), 'connected\n');
      } finally {
        server.close();
      }
    });

    it('abort kills the whole tree (background and setsid grandchildren) and resolves killed', async () => {
      const marker = sleepMarker(kind, 1);
      const spec = await job(`sleep ${marker}1 & setsid sleep ${marker}2 & (setsid sh -c "sleep ${marker}3" &) ; echo started; sleep ${marker}4`);
      const ac = new AbortController();
      const running = executor.run(spec, ac.signal);
      await waitForFile(spec.stdoutLog, 'started');
      assert.ok((await processesMatching(`sleep ${marker}`)).length >= 3, 'the sleeps run');
      const t0 = Date.now();
      ac.abort();
      const r = await running;
      const elapsed = Date.now() - t0;
      assert.equal(r.outcome, 'killed');
      assert.equal(r.reason, 'stopped');
      assert.ok(elapsed < 1900, `stopped in ${elapsed} ms, before the SIGKILL grace period`);
      assert.deepEqual(await processesMatching(`sleep ${marker}`), [], 'no sleep survives');
    });

    it('a job ignoring SIGTERM is SIGKILLed after the grace period', async () => {
      const marker = sleepMarker(kind, 2);
      const spec = await job(`trap "" TERM; setsid sleep ${marker} & echo started; sleep ${marker}`);
      const ac = new AbortController();
      const running = executor.run(spec, ac.signal);
      await waitForFile(spec.stdoutLog, 'started');
      const t0 = Date.now();
      ac.abort();
      const r = await running;
      const elapsed = Date.now() - t0;
      assert.equal(r.outcome, 'killed');
      assert.ok(elapsed >= 1900 && elapsed < 6000, `killed after ${elapsed} ms (grace 2000 ms)`);
      assert.deepEqual(await processesMatching(`sleep ${marker}`), []);
    });

    it('background processes (also double-forked setsid ones) end with the job', async () => {
      const marker = sleepMarker(kind, 3);
      const r = await executor.run(await job(`setsid sleep ${marker} & sleep ${marker}1 & (setsid sh -c "sleep ${marker}2" &); echo done`), never());
      assert.equal(r.outcome, 'succeeded');
      assert.deepEqual(await processesMatching(`sleep ${marker}`), []);
    });

    it('timeout → timed_out', async () => {
      const t0 = Date.now();
      const r = await executor.run(await job('sleep 30', { timeoutSeconds: 1 }), never());
      assert.equal(r.outcome, 'timed_out');
      assert.equal(r.reason, 'timed out after 1 s');
      assert.ok(Date.now() - t0 < 5000);
    });

    it('an already aborted signal does not start the job', async () => {
      const ac = new AbortController();
      ac.abort();
      const spec = await job('echo ran > ran.txt');
      const r = await executor.run(spec, ac.signal);
      assert.equal(r.outcome, 'killed');
      await assert.rejects(readFile(join(spec.workDir, 'ran.txt')));
    });

    it('memory limit: a job allocating over memMb fails with an out-of-memory reason', async () => {
      const spec = await job(allocate(3), { memMb: 100 });
      const r = await executor.run(spec, never());
      assert.equal(r.outcome, 'out_of_memory');
      assert.match(r.reason, /out of memory/);
      assert.equal(r.memoryEnforcement, container ? 'container' : cgroupMemory ? 'cgroup-v1' : 'watchdog');
    });

    it(
      'memory limit, watchdog mode: over the limit → killed and failed; peak RSS reported',
      processesOnly("a container's memory limit is its cgroup's"),
      async () => {
        const watchdog = createExecutor(kind as 'bwrap' | 'host', { memoryLimit: 'watchdog', cgroups: false, sampleIntervalMs: 100, launcher: launcherKind });
        const r = await watchdog.run(await job(`perl -e '$x = "a" x (400*1024*1024); sleep 10'`, { memMb: 100 }), never());
        assert.equal(r.outcome, 'out_of_memory');
        assert.equal(r.memoryEnforcement, 'watchdog');
        assert.match(r.reason, /out of memory: .* over the 100 MB limit/);
        assert.ok((r.peakRssBytes ?? 0) > 100 * 1024 * 1024);
        const ok = await watchdog.run(await job('sleep 0.5', { memMb: 100 }), never());
        assert.equal(ok.outcome, 'succeeded');
        assert.ok((ok.peakRssBytes ?? 0) > 0 && (ok.peakRssBytes ?? 0) < 100 * 1024 * 1024);
      },
    );

    it('invalid specs are refused', async () => {
      await assert.rejects(
        executor.run(await job('true', { mounts: [{ hostPath: '/etc/hostname', sandboxPath: '/etc/x', readOnly: true }] }), never()),
        /under \/var\/data/,
      );
      await assert.rejects(
        executor.run(await job('true', { mounts: [{ hostPath: '/etc/hostname', sandboxPath: '/var/data/../x', readOnly: true }] }), never()),
        /mount/,
      );
      await assert.rejects(executor.run(await job('true', { stdin: '/var/data/a/../../etc/passwd' }), never()), /stdin/);
      await assert.rejects(executor.run(await job('true', { env: { 'A=B': 'x' } }), never()), /env/);
    });

    const demoImage = container && !skip && hasImage(kind, DEMO_IMAGE);
    it(
      'real tools run under a 1.5 GB memory limit: wgsim, bwa index/mem, samtools sort/flagstat, fastp',
      {
        skip: container && !demoImage ? `${kind}: the tools are in ${DEMO_IMAGE}, which is not built here (scripts/images/build-demo.sh)` : false,
      },
      async () => {
        const tools = container ? { image: DEMO_IMAGE } : {};
        const spec = await job(
          [
            'set -e',
            'wgsim -S 7 -N 2000 -1 70 -2 70 /var/data/inputs/ref.fa r1.fq r2.fq > /dev/null',
            'bwa index -p /var/data/ref /var/data/inputs/ref.fa 2> bwa_index.log',
            'bwa mem -t 1 /var/data/ref r1.fq r2.fq 2> bwa_mem.log > aln.sam',
            'samtools sort -o aln.bam aln.sam',
            'samtools flagstat aln.bam',
            'fastp -i r1.fq -I r2.fq -o r1.trim.fq -O r2.trim.fq -j fastp.json -h fastp.html -w 1 2> fastp.log',
          ].join('\n'),
          // fastp 0.23.2 touches about 1 GB even for tiny inputs (measured: max RSS 1071044 KB), so 512 MB would OOM
          { ...tools, memMb: 1536, mounts: [{ hostPath: '/usr/share/doc/samtools/examples/ex1.fa', sandboxPath: '/var/data/inputs/ref.fa', readOnly: true }] },
        );
        const r = await executor.run(spec, never());
        assert.equal(r.outcome, 'succeeded', `${r.reason}\n${await read(spec.stderrLog)}`);
        assert.match(await read(spec.stdoutLog), /^4000 \+ 0 in total/m);
        assert.match(await read(spec.stdoutLog), /^\d+ \+ 0 mapped \((9\d|100)\.\d+%/m);
        const fastp = JSON.parse(await read(join(spec.workDir, 'fastp.json'))) as { summary: { before_filtering: { total_reads: number } } };
        assert.equal(fastp.summary.before_filtering.total_reads, 4000);

        const version = await job('samtools --version | head -1', tools);
        assert.equal((await executor.run(version, never())).outcome, 'succeeded');
        assert.match(await read(version.stdoutLog), /^samtools 1\./);
      },
    );
  });
}

function listen(host = '127.0.0.1'): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.resume().on('end', () => socket.end()));
    server.listen(0, host, () => resolve(server));
  });
}
