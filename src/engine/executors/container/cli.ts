/**
 * The docker-compatible command line the container executor drives: podman, or docker (or podman's `docker`
 * shim). Only the subcommands and flags both understand are used, except where a flavour says otherwise
 * (run-args.ts).
 *
 * Each call is a short-lived process started from the server. (Job processes are started through the
 * launcher so that a fork does not block the event loop; a container CLI call costs tens of milliseconds of
 * CPU in the CLI itself, against 2-4 ms for the fork, so a launcher would save little here.)
 */
import { spawn } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { findInPath } from '../find-in-path.js';

/** Which CLI answers: flags and output formats differ in a few places. */
export type CliFlavour = 'podman' | 'docker';

export interface CliResult {
  /** null when the process was killed by a signal or could not be started. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI's own error text, without podman's log prefixes, on one line (for job reasons). */
export function errorText(result: CliResult): string {
  const lines = result.stderr
    .split('\n')
    .map((line) => line.replace(/^time="[^"]*" level=\w+ msg="(.*)"$/, '$1').trim())
    .filter(Boolean);
  // The last line is the error itself; retries and warnings come before it.
  const last = lines[lines.length - 1] ?? (result.code === null ? 'killed' : `exit code ${result.code}`);
  return last.replace(/^Error:\s*/, '');
}

/** Whether a failed inspect or rm said the container does not exist (podman and docker word it differently). */
export function saysNoSuchContainer(result: CliResult): boolean {
  return /no such (container|object)|no container with (name|id)/i.test(result.stderr);
}

export class ContainerCli {
  /** The program run: an absolute path, or a name found in PATH (when it is not, the name, which fails clearly). */
  readonly program: string;

  constructor(
    /** As configured: a path or a name in PATH. */
    readonly configured: string,
    /** The flavour assumed until check() has asked the CLI itself. */
    public flavour: CliFlavour,
  ) {
    this.program = isAbsolute(configured) || configured.includes('/') ? configured : (findInPath(configured) ?? configured);
  }

  /**
   * Run the CLI with `args` (never through a shell) and collect its output. `env` is added to the server's
   * environment, which the CLI needs (PATH to find its runtime, XDG_RUNTIME_DIR, DOCKER_HOST...). Aborting
   * `signal` terminates the CLI process (not what it manages: a container lives on). `cwd` is the working
   * directory of the CLI, and of the monitor process podman starts with a container (see ContainerExecutor.run).
   */
  run(args: string[], options: { signal?: AbortSignal; env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
    return new Promise((resolve) => {
      let stdout = '';
      let stderr = '';
      const child = spawn(this.program, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: options.env ? { ...process.env, ...options.env } : process.env,
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const onAbort = () => child.kill('SIGTERM');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      let settled = false;
      const settle = (result: CliResult) => {
        if (settled) return;
        settled = true;
        options.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      child.once('error', (error) => settle({ code: null, stdout, stderr: `${stderr}${error.message}\n` }));
      child.once('close', (code) => settle({ code, stdout, stderr }));
    });
  }
}
