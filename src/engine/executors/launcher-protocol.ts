/** The messages between the server and its launcher process (launcher.ts, launcher-child.ts). */

export interface LaunchRequest {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  /** The complete environment (nothing is inherited from the launcher). */
  env: Record<string, string>;
  /** Host paths of the log files that become stdout and stderr. */
  stdoutLog: string;
  stderrLog: string;
  /**
   * cgroup v1 `cgroup.procs` files: the launcher moves itself into `join` (the job's groups), forks the job there,
   * and moves itself back to `leave` (its own groups), so the job is in its groups from its first instruction.
   */
  cgroups?: { join: string[]; leave: string[] };
}

export type LaunchReply =
  | { id: number; type: 'spawned'; pid: number }
  /** stage 'log': a log file could not be opened; 'spawn': the process could not be started. */
  | { id: number; type: 'failed'; stage: 'log' | 'spawn'; message: string }
  | { id: number; type: 'exit'; code: number | null; signal: NodeJS.Signals | null };
