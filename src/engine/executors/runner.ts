/**
 * What the bwrap and host executors share: starting the job's first process in its own process group
 * (and, when possible, its own cgroup v1 group), timeouts, abort, memory enforcement, peak-RSS sampling,
 * killing the whole process tree, and turning the exit into a JobResult.
 *
 * Finding a job's processes costs in proportion to the job, not to the machine (a server may run a thousand
 * jobs at once, BENCHMARKS.md, bench:load):
 * - with a cgroup, they are its members (`cgroup.procs`): the job is born in its group, and leaving it takes a
 *   write to cgroupfs, which a bwrap job cannot make (read-only, no capabilities) and a host job running as root
 *   could, like anything else (the host executor is for trusted commands); the kill path walks the tree too;
 * - without one, they are the first process and its descendants, walked through the kernel's
 *   /proc/<pid>/task/<tid>/children files; on a kernel without those files, they come from a scan of all of
 *   /proc that one sampling tick shares between all jobs (proc-scan.ts);
 * - a host job without a cgroup can also have processes that left the tree (setsid() and a double fork): those
 *   carry its environment marker, which only a scan of /proc finds. The kill path scans (shared and in slices
 *   as well); sampling does not, and keeps such processes in view as long as an earlier sample saw them.
 * Samples are taken by one sampler for all jobs (sampler.ts); samples, kills and sweeps of many jobs at once are
 * spread over turns of the event loop (turn-budget.ts).
 *
 * Killing a tree ("terminate"):
 * 1. SIGTERM to every process of the job: the members of its cgroup (exact, when cgroups are used), all live
 *    descendants of the first process (so processes that called setsid() are included), those that carry
 *    the job's environment marker (host, without a cgroup), every process seen in an earlier sample that is
 *    still alive (matched by pid *and* start time, so a reused pid is never hit; processes found by a scan are
 *    checked again the same way just before they are signalled), and, for the host executor, the process group.
 *    For bwrap the bwrap process itself is spared in this step: its death SIGKILLs the sandbox at once
 *    (--die-with-parent + PID namespace), which would take the grace period away from the tool.
 * 2. After `killGraceMs` (default 5 s; 0 for a memory overrun), SIGKILL to the same set including the first
 *    process, repeated until it has exited.
 * 3. When the first process has exited, whatever is left of the job (host-mode background processes, for
 *    instance) is SIGKILLed and waited for before `run` resolves: a job ends when its command ends.
 */
import { existsSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { CgroupV1Job, discoverCgroupV1 } from './cgroup.js';
import type { JobResult, JobSpec, MemoryEnforcement, RunHooks } from './executor.js';
import { LaunchError, type Launcher, type LauncherKind, type LaunchedProcess, type ProcessExit } from './launcher.js';
import { validateSpec } from './paths.js';
import { scanProcesses, type ProcTable } from './proc-scan.js';
import { descendants, isAlive, procChildrenSupported, procsByPid, signalPid, type ProcInfo } from './proctree.js';
import { samplerFor } from './sampler.js';
import { budgeted } from './turn-budget.js';

export interface ProcessExecutorOptions {
  /** Time between SIGTERM and SIGKILL when a job is stopped or times out. Default 5000 ms. */
  killGraceMs?: number;
  /**
   * How `memMb` is enforced:
   * - 'auto' (default): a cgroup v1 memory limit when the server can create groups (root, v1 memory hierarchy
   *   mounted writable), otherwise 'watchdog'.
   * - 'cgroup-v1': require the cgroup v1 memory limit; a run fails to start (rejects) when it is not available.
   * - 'watchdog': sample the job's processes every `sampleIntervalMs` and SIGKILL the tree when their summed
   *   RSS exceeds the limit. Works anywhere, reacts late (a fast allocation can overshoot between samples).
   * - 'none': do not enforce (peak RSS is still reported).
   * RLIMIT_AS is deliberately not used: virtual-size limits break Java and threaded tools (bwa mem reserves
   * far more address space than it touches).
   */
  memoryLimit?: 'auto' | 'cgroup-v1' | 'watchdog' | 'none';
  /** Use cgroup v1 groups when available (cpu quota, exact process tracking, memory limit). Default true. */
  cgroups?: boolean;
  /** What starts the job processes (launcher.ts); default: the native launcher when it has been built. */
  launcher?: LauncherKind;
  /** Interval of process sampling (peak RSS, watchdog, tracking of escaped processes). Default 1000 ms. */
  sampleIntervalMs?: number;
  /**
   * How the processes of a job without a cgroup are found (with one, they are its group's members):
   * - 'auto' (default): from its first process through /proc/<pid>/task/<tid>/children when the kernel has those
   *   files (CONFIG_PROC_CHILDREN), a few reads per process of the job; else as 'scan'.
   * - 'scan': in a scan of all of /proc, one per sampling tick shared by all such jobs (proc-scan.ts).
   */
  processTracking?: 'auto' | 'scan';
}

/** What both executors check in `check()`: a required cgroup memory limit is possible here. */
export async function checkMemoryLimitSupport(options: ProcessExecutorOptions): Promise<void> {
  if (options.memoryLimit === 'cgroup-v1' && !(await discoverCgroupV1()).memory) {
    throw new Error('memoryLimit "cgroup-v1" needs a writable cgroup v1 memory hierarchy (run as root)');
  }
}

/** Check a job spec and make its working directory (unless it exists); returns the directory's real path. */
export async function prepareWorkDir(spec: JobSpec): Promise<string> {
  validateSpec(spec);
  if (!existsSync(spec.workDir)) await mkdir(spec.workDir, { recursive: true });
  return realpathSync(spec.workDir);
}

/** How one run is started; built by the concrete executor. */
export interface LaunchPlan {
  /** [file, ...args] of the first process. */
  argv: string[];
  /** The complete environment of the first process (nothing is inherited). */
  env: Record<string, string>;
  cwd: string;
  /** Spare the first process from SIGTERM (bwrap: its death SIGKILLs the sandbox immediately). */
  termSkipsRoot: boolean;
  /** Also signal the first process's process group. */
  signalGroup: boolean;
  /**
   * "NAME=value" present in `env`: without cgroups, processes carrying it are treated as the job's when it is
   * killed or ends (catches double-forked setsid processes that left the tree; not needed with a PID namespace).
   */
  envMarker?: string;
  /** Called after the job has ended, before run resolves. */
  cleanup?: () => Promise<void>;
}

type Cause = 'abort' | 'timeout' | 'memory';

const MiB = 1024 * 1024;
const now = (): number => Date.now() / 1000;

const signalNames = new Map<number, string>();
for (const [name, num] of Object.entries(osConstants.signals)) {
  if (!signalNames.has(num)) signalNames.set(num, name);
}

/** argv running `command` with /bin/sh, stdin / stdout redirected by that shell (i.e. as the command sees paths). */
export function shellArgv(command: string, stdin?: string, stdout?: string): string[] {
  if (!stdin && !stdout) return ['/bin/sh', '-c', command];
  return [
    '/bin/sh',
    '-c',
    '[ -z "$1" ] || exec <"$1"; [ -z "$2" ] || exec >"$2"; exec /bin/sh -c "$3"',
    'gdflow-redirect',
    stdin ?? '',
    stdout ?? '',
    command,
  ];
}

export async function runProcess(
  spec: JobSpec,
  abortSignal: AbortSignal,
  options: ProcessExecutorOptions,
  plan: LaunchPlan,
  launcher: Launcher,
  hooks?: RunHooks,
): Promise<JobResult> {
  const killGraceMs = options.killGraceMs ?? 5000;
  const sampleIntervalMs = Math.max(20, options.sampleIntervalMs ?? 1000);
  const memoryMode = options.memoryLimit ?? 'auto';
  const memBytes = spec.memMb > 0 ? Math.round(spec.memMb * MiB) : 0;

  if (abortSignal.aborted) {
    const t = now();
    return { outcome: 'killed', exitCode: null, signal: null, reason: 'stopped', startedAt: t, endedAt: t, memoryEnforcement: 'none' };
  }

  // cgroup (cpu quota, tracking, maybe memory)
  const wantCgMemory = memBytes > 0 && (memoryMode === 'auto' || memoryMode === 'cgroup-v1');
  let cg: CgroupV1Job | undefined;
  if (options.cgroups !== false || memoryMode === 'cgroup-v1') {
    cg = await CgroupV1Job.create(spec.jobId, { memBytes: wantCgMemory ? memBytes : undefined, cpu: spec.cpu }, false);
  }
  let enforcement: MemoryEnforcement = 'none';
  if (memBytes > 0) {
    if (cg?.hasMemoryLimit) enforcement = 'cgroup-v1';
    else if (memoryMode === 'cgroup-v1') {
      await cg?.destroy();
      throw new Error('memoryLimit is "cgroup-v1" but no writable cgroup v1 memory hierarchy is available to this process');
    } else if (memoryMode === 'auto' || memoryMode === 'watchdog') enforcement = 'watchdog';
  }

  const [file, ...args] = plan.argv;
  if (!file) {
    await cg?.destroy();
    throw new Error('empty argv');
  }

  // The launcher opens the log files (created or truncated, never through a symlink) and starts the
  // process detached: its own process group.
  const startedAt = now();
  let launched: LaunchedProcess | undefined;
  let launchError: Error | undefined;
  try {
    launched = await launcher.launch({
      file,
      args,
      cwd: plan.cwd,
      env: plan.env,
      stdoutLog: spec.stdoutLog,
      stderrLog: spec.stderrLog,
      ...(cg ? { cgroups: cg.procsFiles } : {}),
    });
  } catch (error) {
    if (error instanceof LaunchError && error.stage === 'spawn') launchError = error;
    else {
      await cg?.destroy();
      throw error;
    }
  }

  if (launched) {
    try {
      hooks?.onStarted?.({ pid: launched.pid });
    } catch (error) {
      process.emitWarning(`the onStarted hook of job ${spec.jobId} threw: ${(error as Error).message}`);
    }
  }

  return await new Promise<JobResult>((resolve) => {
    let cause: Cause | undefined;
    let exited = false;
    let settled = false;
    let peakRss: number | undefined;
    let watchdogRss = 0;
    const known = new Map<number, string>(); // pid -> start time, every job process ever seen
    const timers: NodeJS.Timeout[] = [];

    const rootPid = launched?.pid;
    /** The job's tree can be walked from its first process through the children files (proctree.ts). */
    const walkTree = (options.processTracking ?? 'auto') === 'auto' && procChildrenSupported();
    /** Without a cgroup or children files, the job's tree shows only in a scan of all of /proc (proc-scan.ts). */
    const needsTable = !cg && !walkTree;
    /** Without a cgroup, processes that escaped the tree are found by their environment marker, in a scan. */
    const marker = !cg ? plan.envMarker : undefined;
    /** Whether the kill path needs a scan of /proc as well as what it finds at once. */
    const killScans = needsTable || marker !== undefined;
    const markerName = marker?.slice(0, marker.indexOf('='));

    /** The tree of the first process: from `table` when given, else through the children files (when usable). */
    const tree = (table?: ProcTable): ProcInfo[] => {
      if (rootPid === undefined) return [];
      if (table) return table.tree(rootPid);
      return walkTree ? descendants(rootPid) : [];
    };
    /** The members of the job's cgroup (the Node launcher visits a job's group while it forks: never one of them). */
    const members = (): ProcInfo[] => (cg ? procsByPid(cg.pids()).filter((p) => p.pid !== launcher.pid) : []);

    /**
     * Signals every process of the job that `found` lists, or an earlier sample saw and still runs (pid and start
     * time). Processes listed by a scan are checked again first: the scan may be some milliseconds old.
     */
    const signalFound = (found: ProcInfo[], sig: NodeJS.Signals, skipRoot: boolean, fromScan: boolean): void => {
      const targets = new Set<number>();
      for (const p of found) {
        if (p.state === 'Z' || (fromScan && !isAlive(p.pid, p.startTime))) continue;
        known.set(p.pid, p.startTime);
        targets.add(p.pid);
      }
      for (const [pid, start] of known) if (!targets.has(pid) && isAlive(pid, start)) targets.add(pid);
      if (plan.signalGroup && rootPid !== undefined && !(skipRoot && !exited)) signalPid(-rootPid, sig);
      for (const pid of targets) {
        if (skipRoot && pid === rootPid) continue;
        signalPid(pid, sig);
      }
    };

    /**
     * Signals the whole job: at once what its cgroup and its tree show, then, when that may not be all, what a
     * scan of /proc shows (a scan shared with every other job that needs one now). Never rejects.
     */
    const signalAll = async (sig: NodeJS.Signals, skipRoot: boolean): Promise<void> => {
      const atOnce = budgeted(() => signalFound([...members(), ...tree()], sig, skipRoot, false));
      if (!killScans) return atOnce.catch(() => undefined);
      const scanned = scanProcesses(markerName).then((table) =>
        budgeted(() => signalFound([...(needsTable ? tree(table) : []), ...(marker ? table.withEnv(marker) : [])], sig, skipRoot, true)),
      );
      await Promise.all([atOnce, scanned]).catch(() => undefined);
    };

    /** One sample (sampler.ts): the job's processes now, their RSS, and the watchdog's verdict. */
    const sample = (table: ProcTable | undefined): void => {
      if (exited) return;
      // With a cgroup its members are the job (see the top of this file); the kill path also walks the tree.
      const procs = cg ? members() : tree(table);
      let total = 0;
      const current = new Set<number>();
      for (const p of procs) {
        known.set(p.pid, p.startTime);
        current.add(p.pid);
        if (p.state !== 'Z') total += p.rssBytes;
      }
      // forget processes that are gone; keep the ones that left the tree (setsid + orphaned) but still run
      for (const [pid, start] of known) if (!current.has(pid) && !isAlive(pid, start)) known.delete(pid);
      if (procs.length > 0) peakRss = Math.max(peakRss ?? 0, total);
      if (enforcement === 'watchdog' && total > memBytes && !cause) {
        watchdogRss = total;
        terminate('memory');
      }
    };

    const killHard = (): void => {
      let signalling = true;
      const kill = (): void => {
        signalling = true;
        void signalAll('SIGKILL', false).then(() => (signalling = false));
      };
      kill();
      const again = setInterval(() => {
        if (exited) clearInterval(again);
        else if (!signalling) kill(); // (a scan under load can take longer than the interval)
      }, 250);
      timers.push(again);
    };

    const terminate = (why: Cause): void => {
      if (cause || exited) return;
      cause = why;
      const grace = why === 'memory' ? 0 : killGraceMs;
      if (grace <= 0) {
        killHard();
        return;
      }
      void signalAll('SIGTERM', plan.termSkipsRoot);
      timers.push(setTimeout(killHard, grace));
    };

    const onAbort = (): void => terminate('abort');
    abortSignal.addEventListener('abort', onAbort, { once: true });
    if (abortSignal.aborted) terminate('abort'); // aborted while the run was being set up
    if (spec.timeoutSeconds > 0) timers.push(setTimeout(() => terminate('timeout'), spec.timeoutSeconds * 1000));
    const stopSampling = launched ? samplerFor(sampleIntervalMs).watch({ sample, needsTable }, Math.min(100, sampleIntervalMs)) : undefined;

    const finish = async (code: number | null, sig: NodeJS.Signals | null, startError?: Error, lost?: string): Promise<void> => {
      if (settled) return;
      settled = true;
      exited = true;
      abortSignal.removeEventListener('abort', onAbort);
      stopSampling?.();
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      // Whatever the command left behind dies with it.
      const empty = await sweep();
      const oomKills = cg ? cg.oomKills() : 0;
      await cg?.destroy(empty);
      await plan.cleanup?.().catch(() => undefined);
      const endedAt = now();
      const base = { exitCode: code, signal: sig as string | null, startedAt, endedAt, memoryEnforcement: enforcement };
      const extra = peakRss !== undefined ? { peakRssBytes: peakRss } : {};
      let result: JobResult;
      if (startError) {
        result = { ...base, outcome: 'failed', reason: `could not start: ${startError.message}` };
      } else if (lost) {
        result = { ...base, outcome: 'failed', reason: lost };
      } else if (cause === 'abort') {
        result = { ...base, outcome: 'killed', reason: 'stopped' };
      } else if (cause === 'timeout') {
        result = { ...base, outcome: 'timed_out', reason: `timed out after ${spec.timeoutSeconds} s` };
      } else if (cause === 'memory') {
        result = {
          ...base,
          outcome: 'out_of_memory',
          reason: `out of memory: the job's processes used ${Math.round(watchdogRss / MiB)} MB, over the ${spec.memMb} MB limit`,
        };
      } else if (code === 0) {
        result = { ...base, outcome: 'succeeded', reason: 'exit code 0' };
      } else {
        let reason: string;
        let signal = sig as string | null;
        if (sig) reason = `killed by ${sig}`;
        else if (code !== null && code > 128 && code <= 128 + 64 && signalNames.has(code - 128)) {
          // bwrap's init and /bin/sh report a command killed by signal N as exit code 128+N
          signal = signalNames.get(code - 128) ?? null;
          reason = `killed by ${signal} (exit code ${code})`;
        } else reason = `exit code ${code}`;
        const outOfMemory = oomKills > 0;
        if (outOfMemory) reason = `out of memory: exceeded the ${spec.memMb} MB limit (${reason})`;
        result = { ...base, signal, outcome: outOfMemory ? 'out_of_memory' : 'failed', reason };
      }
      resolve({ ...result, ...extra });
    };

    /**
     * Kills what is left of the job; true when nothing was left in its cgroup at the end. Each look is a budgeted
     * piece, so that a thousand jobs ending at once do not hold the event loop together.
     */
    const sweep = async (): Promise<boolean> => {
      const deadline = Date.now() + 5000;
      // Poll quickly at first: a sandbox's processes are usually gone a few milliseconds after
      // its first process, and every job pays this wait.
      let pause = 2;
      for (;;) {
        // Without a cgroup, what escaped the tree is found by its marker in a scan (shared with other jobs).
        const table = marker ? await scanProcesses(markerName) : undefined;
        const look = await budgeted(() => {
          const procs = cg ? procsByPid(cg.pids()) : table && marker ? table.withEnv(marker) : [];
          const left: number[] = [];
          for (const p of procs) {
            if (p.state === 'Z' || p.pid === launcher.pid || (table && !isAlive(p.pid, p.startTime))) continue;
            left.push(p.pid);
          }
          for (const [pid, start] of known) if (pid !== rootPid && isAlive(pid, start)) left.push(pid);
          if (plan.signalGroup && rootPid !== undefined) signalPid(-rootPid, 'SIGKILL');
          if (left.length === 0) return { done: true, empty: procs.length === 0 }; // a zombie still listed: let destroy() look again
          if (Date.now() > deadline) return { done: true, empty: false };
          for (const pid of left) signalPid(pid, 'SIGKILL');
          return { done: false, empty: false };
        });
        if (look.done) return look.empty;
        await new Promise((r) => setTimeout(r, pause));
        pause = Math.min(pause * 2, 50);
      }
    };

    if (launchError || !launched) void finish(null, null, launchError ?? new Error('no process'));
    else void launched.exited.then((exit: ProcessExit) => finish(exit.code, exit.signal, undefined, exit.lost));
  });
}
