/**
 * Knowing when a job's container has ended, without a CLI process per look.
 *
 * The container's script writes its status file when the command has ended (script.ts): that is the
 * usual end, noticed at once through inotify on the file's directory. A container can also end without it (its
 * script killed: SIGKILL after a stop's grace period, or the kernel's out-of-memory killer choosing it); then
 * the runtime's monitor of the container is what tells: podman's conmon, a process of this machine found through
 * the pid file `podman run --conmon-pidfile` writes, which exits once the container has ended and (run with
 * `--rm`) been removed; with docker, a `docker wait` (the daemon answers it).
 *
 * Why not `podman wait`: it is a process that polls the container's state (every 250 ms by default), costing
 * 25-30 ms of CPU to start and more to poll; beside a `podman run` that costs about 0.15 s in all, that was a
 * sixth of a short job's CPU (BENCHMARKS.md, bench:engine, containers).
 */
import { closeSync, constants as fsConstants, mkdirSync, openSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RunSpec } from '../executor.js';
import { readStatus, type ContainerStatus } from './script.js';

/** A job's files on the host that concern its container. */
export interface ContainerFiles {
  stdout: string;
  stderr: string;
  /** `<job dir>/container/`: the working directory of podman's monitor, holding the three files below. */
  dir: string;
  /** Written by the container's script at its end. */
  status: string;
  /** podman's monitor's pid (`--conmon-pidfile`). */
  monitorPid: string;
  /**
   * conmon writes an empty file named `oom` into its working directory when the kernel kills a process of the
   * container for memory. podman 4.3 looks for it elsewhere, so its OOMKilled stays false (measured here): the
   * executor reads it instead.
   */
  monitorOom: string;
}

/** The job's files: the logs, and beside the stdout log a directory for the container's own. */
export function containerFilesOf(spec: RunSpec): ContainerFiles {
  const dir = join(dirname(spec.stdoutLog), 'container');
  return {
    stdout: spec.stdoutLog,
    stderr: spec.stderrLog,
    dir,
    status: join(dir, 'status'),
    monitorPid: join(dir, 'conmon.pid'),
    monitorOom: join(dir, 'oom'),
  };
}

/** Create (or truncate) a file the container will write, refusing a symlink planted at its path. */
export function createFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  closeSync(openSync(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC | fsConstants.O_NOFOLLOW, 0o644));
}

/** A process known by pid and start time: a pid reused by another process after it is gone is not taken for it. */
export class WatchedProcess {
  private constructor(
    readonly pid: number,
    private readonly startTime: string,
  ) {}

  /** The process whose pid a pid file holds, if it runs now. */
  static fromPidFile(path: string): WatchedProcess | undefined {
    let pid: number;
    try {
      pid = Number(readFileSync(path, 'utf8').trim());
    } catch {
      return undefined;
    }
    if (!Number.isInteger(pid) || pid <= 1) return undefined;
    const start = WatchedProcess.startOf(pid);
    return start === undefined ? undefined : new WatchedProcess(pid, start);
  }

  /** The start time of a live (not zombie) process, or undefined. */
  private static startOf(pid: number): string | undefined {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A monitor that has exited may stay a zombie for a while: PID 1 of some machines reaps slowly.
      if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
      return fields[19];
    } catch {
      return undefined;
    }
  }

  alive(): boolean {
    return WatchedProcess.startOf(this.pid) === this.startTime;
  }
}

/**
 * Resolves with the script's status once it is written, or with undefined once `gone()` says the container has
 * ended without one. Looks again whenever something changes in the container's directory, and every `pollMs`.
 */
export async function untilEnded(files: ContainerFiles, gone: () => boolean | Promise<boolean>, pollMs: number): Promise<ContainerStatus | undefined> {
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(files.dir, { persistent: false }, (_event, name) => {
      if (name === null || name === 'status') wake?.();
    });
  } catch {
    // no inotify here: the poll alone notices the end
  }
  try {
    for (;;) {
      const status = readStatus(files.status);
      if (status) return status;
      // The script may have written its status just before its end: look once more after learning of the end.
      if (await gone()) return readStatus(files.status);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    watcher?.close();
  }
}
