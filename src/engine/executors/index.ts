/**
 * The executors: how the engine runs a job's command. The contract every one of them keeps is executor.ts (with
 * the checks of a spec in spec-checks.ts and the reading of an end in outcome.ts); each kind is a folder:
 * process/ (bwrap and host, with their launcher), container/ (podman, docker) and slurm/.
 */
import { ContainerExecutor, type ContainerExecutorOptions } from './container/index.js';
import type { Executor } from './executor.js';
import { BwrapExecutor, HostExecutor, type BwrapExecutorOptions, type HostExecutorOptions } from './process/index.js';
import { SlurmExecutor, type SlurmExecutorOptions } from './slurm/index.js';

export type ExecutorKind = 'bwrap' | 'host' | 'podman' | 'docker' | 'slurm';

/**
 * The executor named in the configuration: 'bwrap' (the default) isolates jobs in a sandbox on the host, 'podman'
 * and 'docker' in containers of their tools' images; 'host' does not isolate them; 'slurm' hands each job to a
 * Slurm cluster, which runs it the bwrap or the host way on a node.
 */
export function createExecutor(kind: 'bwrap', options?: BwrapExecutorOptions): Executor;
export function createExecutor(kind: 'host', options?: HostExecutorOptions): Executor;
export function createExecutor(kind: 'podman' | 'docker', options?: ContainerExecutorOptions): Executor;
export function createExecutor(kind: 'slurm', options?: SlurmExecutorOptions): Executor;
export function createExecutor(
  kind: ExecutorKind,
  options?: BwrapExecutorOptions | HostExecutorOptions | ContainerExecutorOptions | SlurmExecutorOptions,
): Executor;
export function createExecutor(
  kind: ExecutorKind,
  options: BwrapExecutorOptions | HostExecutorOptions | ContainerExecutorOptions | SlurmExecutorOptions = {},
): Executor {
  switch (kind) {
    case 'bwrap':
      return new BwrapExecutor(options as BwrapExecutorOptions);
    case 'host':
      return new HostExecutor(options as HostExecutorOptions);
    case 'podman':
    case 'docker':
      return new ContainerExecutor(kind, options as ContainerExecutorOptions);
    case 'slurm':
      return new SlurmExecutor(options as SlurmExecutorOptions);
    default:
      throw new Error(`unknown executor "${String(kind)}" (expected "bwrap", "host", "podman", "docker" or "slurm")`);
  }
}

export { ContainerExecutor, PULL_POLICIES, type ContainerExecutorOptions, type ContainerKind, type PullPolicy } from './container/index.js';
export {
  BwrapExecutor,
  HostExecutor,
  rewriteDataPaths,
  SANDBOX_PATH,
  type BwrapExecutorOptions,
  type HostExecutorOptions,
  type ProcessExecutorOptions,
} from './process/index.js';
export { SlurmExecutor, SLURM_WRAPS, type SlurmExecutorOptions, type SlurmWrap } from './slurm/index.js';
export {
  SANDBOX_DATA_DIR,
  type Executor,
  type ExecutorCapabilities,
  type JobOutcome,
  type JobResult,
  type RunSpec,
  type MemoryEnforcement,
  type Mount,
  type RunHooks,
} from './executor.js';
