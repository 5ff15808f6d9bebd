/**
 * Running a job from its launch plan (bwrap and host executors): its first process started in its own process
 * group (and, when possible, its own cgroup v1 group), timeouts, abort, memory enforcement, peak-RSS sampling,
 * killing the whole process tree, and turning the exit into a JobResult. How the job's processes are found is in
 * tracking/job-processes.ts.
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
import type { JobResult, RunSpec, MemoryEnforcement, RunHooks } from '../executor.js';
import { exitEnding } from '../outcome.js';
import type { LaunchPlan } from './launch-plan.js';
import { LaunchError, type Launcher, type LaunchedProcess, type ProcessExit } from './launcher/launcher.js';
import type { ProcessExecutorOptions } from './options.js';
import { CgroupV1Job } from './tracking/cgroup.js';
import { JobProcesses } from './tracking/job-processes.js';
import type { ProcTable } from './tracking/proc-scan.js';
import { samplerFor } from './tracking/sampler.js';

/** Why the executor ended the job itself, if it did. */
type Cause = 'abort' | 'timeout' | 'memory';

const MiB = 1024 * 1024;
const now = (): number => Date.now() / 1000;

/** The job's cgroup (cpu quota, tracking, maybe memory) and how its memory limit is enforced. */
interface Limits {
  cg: CgroupV1Job | undefined;
  enforcement: MemoryEnforcement;
  /** The memory limit in bytes; 0 = none. */
  memBytes: number;
}

/** How the job's first process started: `launched`, or `launchError` when its program could not be started. */
interface Start {
  startedAt: number;
  launched: LaunchedProcess | undefined;
  launchError: Error | undefined;
}

export async function runProcess(
  spec: RunSpec,
  abortSignal: AbortSignal,
  options: ProcessExecutorOptions,
  plan: LaunchPlan,
  launcher: Launcher,
  hooks?: RunHooks,
): Promise<JobResult> {
  if (abortSignal.aborted) {
    const t = now();
    return { outcome: 'killed', exitCode: null, signal: null, reason: 'stopped', startedAt: t, endedAt: t, memoryEnforcement: 'none' };
  }
  const limits = await openLimits(spec, options);
  const start = await launchFirstProcess(spec, plan, launcher, limits.cg);
  if (start.launched) reportStarted(spec, hooks, start.launched.pid);
  return supervise(spec, abortSignal, options, plan, launcher, limits, start);
}

/** The job's cgroup, when one can be had, and what enforces its memory limit; rejects when 'cgroup-v1' cannot be had. */
async function openLimits(spec: RunSpec, options: ProcessExecutorOptions): Promise<Limits> {
  const memoryMode = options.memoryLimit ?? 'auto';
  const memBytes = spec.memMb > 0 ? Math.round(spec.memMb * MiB) : 0;
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
  return { cg, enforcement, memBytes };
}

/**
 * Starts the first process through the launcher, which opens the log files (created or truncated, never through a
 * symlink) and starts the process detached: its own process group. A program that cannot be started is the job's
 * failure; anything else (a log file that cannot be opened, the launcher gone) rejects, after the cgroup is gone.
 */
async function launchFirstProcess(spec: RunSpec, plan: LaunchPlan, launcher: Launcher, cg: CgroupV1Job | undefined): Promise<Start> {
  const [file, ...args] = plan.argv;
  if (!file) {
    await cg?.destroy();
    throw new Error('empty argv');
  }
  const startedAt = now();
  try {
    const launched = await launcher.launch({
      file,
      args,
      cwd: plan.cwd,
      env: plan.env,
      stdoutLog: spec.stdoutLog,
      stderrLog: spec.stderrLog,
      ...(cg ? { cgroups: cg.procsFiles } : {}),
    });
    return { startedAt, launched, launchError: undefined };
  } catch (error) {
    if (error instanceof LaunchError && error.stage === 'spawn') return { startedAt, launched: undefined, launchError: error };
    await cg?.destroy();
    throw error;
  }
}

function reportStarted(spec: RunSpec, hooks: RunHooks | undefined, pid: number): void {
  try {
    hooks?.onStarted?.({ pid });
  } catch (error) {
    process.emitWarning(`the onStarted hook of job ${spec.jobId} threw: ${(error as Error).message}`);
  }
}

/**
 * Follows the started job to its end: the timeout, the abort signal and the memory watchdog terminate it (see the
 * top of this file); its end sweeps up what it left, releases its cgroup and the plan's preparations, and resolves.
 */
function supervise(
  spec: RunSpec,
  abortSignal: AbortSignal,
  options: ProcessExecutorOptions,
  plan: LaunchPlan,
  launcher: Launcher,
  { cg, enforcement, memBytes }: Limits,
  { startedAt, launched, launchError }: Start,
): Promise<JobResult> {
  const killGraceMs = options.killGraceMs ?? 5000;
  const sampleIntervalMs = Math.max(20, options.sampleIntervalMs ?? 1000);
  const procs = new JobProcesses(launched?.pid, cg, launcher, plan, options.processTracking ?? 'auto');
  return new Promise<JobResult>((resolve) => {
    let cause: Cause | undefined;
    let settled = false;
    let peakRss: number | undefined;
    let watchdogRss = 0;
    const timers: NodeJS.Timeout[] = [];

    /** One sample (tracking/sampler.ts): the job's processes now, their RSS, and the watchdog's verdict. */
    const sample = (table: ProcTable | undefined): void => {
      const seen = procs.sample(table);
      if (!seen) return;
      if (seen.count > 0) peakRss = Math.max(peakRss ?? 0, seen.rssBytes);
      if (enforcement === 'watchdog' && seen.rssBytes > memBytes && !cause) {
        watchdogRss = seen.rssBytes;
        terminate('memory');
      }
    };

    const killHard = (): void => {
      let signalling = true;
      const kill = (): void => {
        signalling = true;
        void procs.signalAll('SIGKILL', false).then(() => (signalling = false));
      };
      kill();
      const again = setInterval(() => {
        if (procs.exited) clearInterval(again);
        else if (!signalling) kill(); // (a scan under load can take longer than the interval)
      }, 250);
      timers.push(again);
    };

    const terminate = (why: Cause): void => {
      if (cause || procs.exited) return;
      cause = why;
      const grace = why === 'memory' ? 0 : killGraceMs;
      if (grace <= 0) {
        killHard();
        return;
      }
      void procs.signalAll('SIGTERM', plan.termSkipsRoot);
      timers.push(setTimeout(killHard, grace));
    };

    const onAbort = (): void => terminate('abort');
    abortSignal.addEventListener('abort', onAbort, { once: true });
    if (abortSignal.aborted) terminate('abort'); // aborted while the run was being set up
    if (spec.timeoutSeconds > 0) timers.push(setTimeout(() => terminate('timeout'), spec.timeoutSeconds * 1000));
    const stopSampling = launched ? samplerFor(sampleIntervalMs).watch({ sample, needsTable: procs.needsTable }, Math.min(100, sampleIntervalMs)) : undefined;

    const finish = async (exit: ProcessExit, startError?: Error): Promise<void> => {
      if (settled) return;
      settled = true;
      procs.exited = true;
      abortSignal.removeEventListener('abort', onAbort);
      stopSampling?.();
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      // Whatever the command left behind dies with it.
      const empty = await procs.sweep();
      const oomKills = cg ? cg.oomKills() : 0;
      await cg?.destroy(empty);
      await plan.cleanup?.().catch(() => undefined);
      const ending = resultOf(spec, exit, { startError, cause, watchdogRss, oomKills });
      resolve({ ...ending, startedAt, endedAt: now(), memoryEnforcement: enforcement, ...(peakRss !== undefined ? { peakRssBytes: peakRss } : {}) });
    };

    if (launchError || !launched) void finish({ code: null, signal: null }, launchError ?? new Error('no process'));
    else void launched.exited.then((exit: ProcessExit) => finish(exit));
  });
}

/** What is known of a job's end besides its exit. */
interface EndEvidence {
  /** The program could not be started. */
  startError: Error | undefined;
  cause: Cause | undefined;
  /** What the watchdog saw when it killed the job for its memory. */
  watchdogRss: number;
  /** Out-of-memory kills the job's cgroup counted. */
  oomKills: number;
}

function resultOf(
  spec: RunSpec,
  { code, signal, lost }: ProcessExit,
  { startError, cause, watchdogRss, oomKills }: EndEvidence,
): Pick<JobResult, 'outcome' | 'exitCode' | 'signal' | 'reason'> {
  const base = { exitCode: code, signal: signal as string | null };
  if (startError) return { ...base, outcome: 'failed', reason: `could not start: ${startError.message}` };
  if (lost) return { ...base, outcome: 'failed', reason: lost };
  if (cause === 'abort') return { ...base, outcome: 'killed', reason: 'stopped' };
  if (cause === 'timeout') return { ...base, outcome: 'timed_out', reason: `timed out after ${spec.timeoutSeconds} s` };
  if (cause === 'memory') {
    const used = Math.round(watchdogRss / MiB);
    return { ...base, outcome: 'out_of_memory', reason: `out of memory: the job's processes used ${used} MB, over the ${spec.memMb} MB limit` };
  }
  return exitEnding(spec, code, signal, oomKills > 0);
}
