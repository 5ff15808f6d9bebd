/**
 * The batch script of one Slurm job, written into the job's directory (a file system the compute nodes share)
 * and submitted with sbatch.
 *
 * It runs the job exactly as the wrapping executor (host or bwrap) would start it on this machine: its working
 * directory, an environment of its own (`env -i`: nothing of the worker's or of Slurm's leaks in; sbatch itself
 * runs with a scrubbed environment, cli.ts) and its command line. When the command ends the script writes the exit code and the
 * Slurm job id to a status file, renamed into place so that it is never read half written: the true end of a job
 * that ended while no worker watched it, however long ago the controller forgot the job. A job killed by Slurm
 * (scancel, its memory or time limit) writes none; then Slurm's state says how it ended. It also writes when the
 * command started. Both files tell the worker what it would otherwise ask the controller (slurm-executor.ts).
 *
 * Every value is single-quoted, with each `'` closed, escaped and reopened, so no character of a command, path or
 * environment value is ever read by the shell as syntax.
 */
import { readFileSync } from 'node:fs';
import type { LaunchPlan } from '../process/index.js';

/** POSIX shell single quoting. */
export function shellQuote(value: string): string {
  if (value.includes('\0')) throw new Error('a NUL byte cannot be passed to a shell');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function batchScript(jobId: string, plan: Pick<LaunchPlan, 'argv' | 'env' | 'cwd'>, statusPath: string, startedPath: string): string {
  const env = Object.entries(plan.env).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`environment variable name "${name}" is not valid`);
    return shellQuote(`${name}=${value}`);
  });
  return [
    ...opening(jobId, plan.cwd, startedPath),
    `/usr/bin/env -i ${[...env, ...plan.argv.map(shellQuote)].join(' ')} </dev/null`,
    'rc=$?',
    ...closing(statusPath),
  ].join('\n');
}

/** What runs a job's container on the node (container/foreground.ts). */
export interface ContainerLaunch {
  /** The runtime's CLI, as the node's PATH finds it or a path. */
  program: string;
  /** The container's name. */
  name: string;
  /** `run` and its arguments, in the foreground. */
  args: string[];
  graceSeconds: number;
  cwd: string;
}

/**
 * The batch script of a job run in its container on the node. The container is the runtime's, not the script's:
 * podman's monitor leaves the job's process tree, so Slurm's SIGTERM on scancel (or its time limit) would reach
 * only the CLI. The script therefore stops the container by name when it is signalled (SIGTERM to the
 * container's processes, SIGKILL after the grace period), and waits for `run` to return before it ends; it also
 * removes a container of that name that an earlier attempt of the job left on this node. `run` itself needs no
 * `env -i`: the runtime gives the container only the environment its arguments name.
 */
export function containerBatchScript(jobId: string, launch: ContainerLaunch, statusPath: string, startedPath: string): string {
  const cli = shellQuote(launch.program);
  const name = shellQuote(launch.name);
  return [
    ...opening(jobId, launch.cwd, startedPath),
    `${cli} rm --force ${name} >/dev/null 2>&1`,
    `stop_container() { ${cli} stop -t ${Math.max(0, Math.floor(launch.graceSeconds))} ${name} >/dev/null 2>&1; }`,
    'trap stop_container TERM INT',
    `${[cli, ...launch.args.map(shellQuote)].join(' ')} </dev/null &`,
    'pid=$!',
    'wait "$pid"; rc=$?',
    // A trapped signal interrupts wait: wait again until the container has ended.
    'while kill -0 "$pid" 2>/dev/null; do wait "$pid"; rc=$?; done',
    ...closing(statusPath),
  ].join('\n');
}

function opening(jobId: string, cwd: string, startedPath: string): string[] {
  return [
    '#!/bin/sh',
    `# gdflow job ${jobId.replace(/[^A-Za-z0-9_.-]/g, '?')}: written by the Slurm executor, run on a compute node.`,
    `cd ${shellQuote(cwd)} || exit 125`,
    // When the command started on the node: where its timeout counts from, known without asking the controller.
    `printf 'started=%s slurm=%s\\n' "$(date +%s)" "$SLURM_JOB_ID" >${shellQuote(startedPath)}`,
  ];
}

/** Writes `rc` and the Slurm job id to the status file, renamed into place, and exits with `rc`. */
function closing(statusPath: string): string[] {
  const tmp = `${statusPath}.tmp`;
  return [`printf 'exit=%s slurm=%s\\n' "$rc" "$SLURM_JOB_ID" >${shellQuote(tmp)} && mv -f ${shellQuote(tmp)} ${shellQuote(statusPath)}`, 'exit "$rc"', ''];
}

export interface SlurmStatus {
  exitCode: number;
  slurmJobId: string;
}

/** What the script wrote; undefined when it wrote nothing (killed first, or not ended) or the file is gone. */
export function readSlurmStatus(path: string): SlurmStatus | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^exit=(\d+) slurm=(\d*)$/m.exec(text);
  return match ? { exitCode: Number(match[1]), slurmJobId: match[2]! } : undefined;
}

/** The start time (seconds since the epoch) the script wrote for Slurm job `slurmJobId`, if it has started. */
export function readSlurmStart(path: string, slurmJobId: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^started=(\d+) slurm=(\d*)$/m.exec(text);
  return match && match[2] === slurmJobId ? Number(match[1]) : undefined;
}

/** sbatch expands `%` patterns (%j, %x, ...) in --output and --error; `%%` is a plain `%`. */
export function slurmFilename(path: string): string {
  return path.replace(/%/g, '%%');
}
