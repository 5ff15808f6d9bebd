/**
 * The container executors (`podman`, `docker`): each job in a container of its tool's image. What the other
 * executors use of them: the executor itself (Slurm's `--slurm-wrap podman` checks the runtime, resolves image
 * digests and asks it for a job's foreground container) and the foreground contract (foreground.ts).
 */
export { ContainerExecutor, type ContainerExecutorOptions, type ContainerKind } from './container-executor.js';
export { foregroundContainer, foregroundEnding, removeForegroundFiles, type ForegroundContainer, type ForegroundRuntime } from './foreground.js';
export { PULL_POLICIES, type PullPolicy } from './images.js';
