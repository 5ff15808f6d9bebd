import { BwrapExecutor, type BwrapExecutorOptions } from './bwrap.js';
import { ContainerExecutor, type ContainerExecutorOptions } from './container.js';
import type { Executor } from './executor.js';
import { HostExecutor, type HostExecutorOptions } from './host.js';

export type ExecutorKind = 'bwrap' | 'host' | 'podman' | 'docker';

/**
 * The executor named in the configuration: 'bwrap' (the default) isolates jobs in a sandbox on the host, 'podman'
 * and 'docker' in containers of their tools' images; 'host' does not isolate them.
 */
export function createExecutor(kind: 'bwrap', options?: BwrapExecutorOptions): Executor;
export function createExecutor(kind: 'host', options?: HostExecutorOptions): Executor;
export function createExecutor(kind: 'podman' | 'docker', options?: ContainerExecutorOptions): Executor;
export function createExecutor(kind: ExecutorKind, options?: BwrapExecutorOptions | HostExecutorOptions | ContainerExecutorOptions): Executor;
export function createExecutor(kind: ExecutorKind, options: BwrapExecutorOptions | HostExecutorOptions | ContainerExecutorOptions = {}): Executor {
  switch (kind) {
    case 'bwrap':
      return new BwrapExecutor(options as BwrapExecutorOptions);
    case 'host':
      return new HostExecutor(options as HostExecutorOptions);
    case 'podman':
    case 'docker':
      return new ContainerExecutor(kind, options as ContainerExecutorOptions);
    default:
      throw new Error(`unknown executor "${String(kind)}" (expected "bwrap", "host", "podman" or "docker")`);
  }
}

export { BwrapExecutor, SANDBOX_PATH, type BwrapExecutorOptions } from './bwrap.js';
export { ContainerExecutor, type ContainerExecutorOptions, type ContainerKind } from './container.js';
export { PULL_POLICIES, type PullPolicy } from './container-images.js';
export { HostExecutor, rewriteDataPaths, type HostExecutorOptions } from './host.js';
export type { ProcessExecutorOptions } from './runner.js';
export {
  SANDBOX_DATA_DIR,
  type Executor,
  type ExecutorCapabilities,
  type JobOutcome,
  type JobResult,
  type JobSpec,
  type MemoryEnforcement,
  type Mount,
  type RunHooks,
} from './executor.js';
