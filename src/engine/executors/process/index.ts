/**
 * The process executors: a job's command as processes of this machine, in a bubblewrap sandbox (`bwrap`) or as
 * they are (`host`), started by the launcher (launcher/) and followed through their cgroup or process tree
 * (tracking/). What the other executors use of them: the executors themselves and their launch plans (the
 * container executor runs jobs without an image in the bwrap sandbox; Slurm runs a plan on a compute node).
 */
export { BwrapExecutor, SANDBOX_PATH, type BwrapExecutorOptions } from './bwrap-executor.js';
export { HostExecutor, rewriteDataPaths, type HostExecutorOptions } from './host-executor.js';
export type { LaunchPlan } from './launch-plan.js';
export type { ProcessExecutorOptions } from './options.js';
