/**
 * What the bwrap and host executors share: the launcher that starts their jobs' processes, the checks of what
 * they need, how a job is run from its launch plan (run-process.ts) and what is released when they stop. They
 * differ only in the plan: how the job's first process is started (`launchPlan`) and what else they need.
 */
import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Executor, ExecutorCapabilities, JobResult, RunSpec, RunHooks } from '../executor.js';
import type { LaunchPlan } from './launch-plan.js';
import { Launcher } from './launcher/launcher.js';
import type { ProcessExecutorOptions } from './options.js';
import { runProcess } from './run-process.js';
import { discoverCgroupV1, removeIdleCgroups } from './tracking/cgroup.js';

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
  abstract launchPlan(spec: RunSpec): Promise<LaunchPlan>;

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

  async run(spec: RunSpec, signal: AbortSignal, hooks?: RunHooks): Promise<JobResult> {
    return runProcess(spec, signal, this.options, await this.launchPlan(spec), this.launcher, hooks);
  }

  async close(): Promise<void> {
    await this.launcher.close();
    await removeIdleCgroups();
  }
}
