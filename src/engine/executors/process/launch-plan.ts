/**
 * How the bwrap and host executors start a job's first process: the plan each of them makes (its `launchPlan`),
 * which run-process.ts carries out here and the Slurm executor's batch script on a compute node.
 */

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

/** argv running `command` with /bin/sh, stdin / stdout redirected by that shell (i.e. as the command sees paths). */
export function shellArgv(command: string, stdin?: string, stdout?: string): string[] {
  if (!stdin && !stdout) return ['/bin/sh', '-c', command];
  return ['/bin/sh', '-c', '[ -z "$1" ] || exec <"$1"; [ -z "$2" ] || exec >"$2"; exec /bin/sh -c "$3"', 'gdflow-redirect', stdin ?? '', stdout ?? '', command];
}
