import { BwrapExecutor, type BwrapExecutorOptions } from './bwrap.js';
import type { Executor } from './executor.js';
import { HostExecutor, type HostExecutorOptions } from './host.js';

export type ExecutorKind = 'bwrap' | 'host';

/** The executor named in the configuration; 'bwrap' is the default and the only one that isolates jobs. */
export function createExecutor(kind: 'bwrap', options?: BwrapExecutorOptions): Executor;
export function createExecutor(kind: 'host', options?: HostExecutorOptions): Executor;
export function createExecutor(kind: ExecutorKind, options?: BwrapExecutorOptions | HostExecutorOptions): Executor;
export function createExecutor(kind: ExecutorKind, options: BwrapExecutorOptions | HostExecutorOptions = {}): Executor {
  switch (kind) {
    case 'bwrap':
      return new BwrapExecutor(options);
    case 'host':
      return new HostExecutor(options);
    default:
      throw new Error(`unknown executor "${String(kind)}" (expected "bwrap" or "host")`);
  }
}

export { BwrapExecutor, SANDBOX_PATH, type BwrapExecutorOptions } from './bwrap.js';
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
