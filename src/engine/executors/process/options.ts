/** The options the bwrap and host executors share: how their jobs are started, followed, limited and stopped. */
import type { LauncherKind } from './launcher/launcher.js';

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
