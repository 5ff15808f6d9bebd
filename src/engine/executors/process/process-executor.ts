/**
 * What the bwrap and host executors share: the launcher that starts their jobs' processes, the checks of what
 * they need, how a job is run from its launch plan (run-process.ts) and what is released when they stop. They
 * differ only in the plan: how the job's first process is started (`launchPlan`) and what else they need.
 */
import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Executor, ExecutorCapabilities, JobResult, JobSpec, RunHooks } from '../executor.js';
import type { LaunchPlan } from './launch-plan.js';
import { Launcher, type LauncherKind } from './launcher/launcher.js';
import { runProcess } from './run-process.js';
import { discoverCgroupV1, removeIdleCgroups } from './tracking/cgroup.js';

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
  /** What starts the job processes (launcher/launcher.ts); default: the native launcher when it has been built. */
  launcher?: LauncherKind;
  /** Interval of process sampling (peak RSS, watchdog, tracking of escaped processes). Default 1000 ms. */
  sampleIntervalMs?: number;
  /**
   * How the processes of a job without a cgroup are found (with one, they are its group's members):
   * - 'auto' (default): from its first process through /proc/<pid>/task/<tid>/children when the kernel has those
   *   files (CONFIG_PROC_CHILDREN), a few reads per process of the job; else as 'scan'.
   * - 'scan': in a scan of all of /proc, one per sampling tick shared by all such jobs (tracking/proc-scan.ts).
   */
  processTracking?: 'auto' | 'scan';
}

export abstract class ProcessExecutor implements Executor {
  abstract readonly name: string;
  abstract readonly capabilities: ExecutorCapabilities;
  /** Starts the job processes, so that the server never forks itself (launcher/launcher.ts). */
  protected readonly launcher: Launcher;

  constructor(protected readonly options: ProcessExecutorOptions) {
    this.launcher = new Launcher(options.launcher);
  }

  /**
   * How the job's first process is started: its command line, environment and working directory, with what the
   * executor prepared for it. Also what the Slurm executor runs on a compute node when it wraps jobs this way.
   */
  abstract launchPlan(spec: JobSpec): Promise<LaunchPlan>;

  /** Checks what this executor needs besides /bin/sh, the memory limit asked for and the launcher. */
  protected abstract checkOwnNeeds(): Promise<void>;

  async check(): Promise<void> {
    try {
      await access('/bin/sh', fsConstants.X_OK);
    } catch {
      throw new Error('/bin/sh is missing or not executable');
    }
    await this.checkOwnNeeds();
    if (this.options.memoryLimit === 'cgroup-v1' && !(await discoverCgroupV1()).memory) {
      throw new Error('memoryLimit "cgroup-v1" needs a writable cgroup v1 memory hierarchy (run as root)');
    }
    this.launcher.check();
  }

  async run(spec: JobSpec, signal: AbortSignal, hooks?: RunHooks): Promise<JobResult> {
    return runProcess(spec, signal, this.options, await this.launchPlan(spec), this.launcher, hooks);
  }

  async close(): Promise<void> {
    await this.launcher.close();
    await removeIdleCgroups();
  }
}
