/**
 * Small /proc readers used to find, sample and kill a job's process tree (Linux only).
 *
 * They read synchronously: /proc is generated in memory, a read takes microseconds, and a trip
 * through libuv's thread pool costs more than that (and delays every job's end under load). What reads
 * the whole of /proc (every process on the machine) is in proc-scan.ts, shared between jobs and cut into
 * slices; what is here reads a given process or a job's own tree.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** Clock ticks after boot; with the pid it identifies a process even if the pid is reused later. */
  startTime: string;
  rssBytes: number;
  /** Threads of the process (each has its own children file). */
  threads: number;
}

let pageSize = 4096;
try {
  const value = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim());
  if (Number.isInteger(value) && value > 0) pageSize = value;
} catch {
  // keep 4096
}

/** Parses /proc/<pid>/stat; undefined when the process is gone. */
export function readProc(pid: number): ProcInfo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parseStat(pid, text);
}

function parseStat(pid: number, text: string): ProcInfo | undefined {
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime
  //  cstime priority nice num_threads itrealvalue starttime vsize rss ..."; comm may hold spaces and ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const state = fields[0];
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const startTime = fields[19];
  const rssPages = Number(fields[21]);
  const threads = Number(fields[17]);
  if (state === undefined || startTime === undefined || !Number.isFinite(ppid)) return undefined;
  return { pid, ppid, pgid, state, startTime, rssBytes: Number.isFinite(rssPages) ? rssPages * pageSize : 0, threads: Number.isFinite(threads) ? threads : 0 };
}

/** The pids listed in /proc, as its directory names. */
export function procPidNames(): string[] {
  try {
    return readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n));
  } catch {
    return [];
  }
}

let childrenFiles: boolean | undefined;

/**
 * Whether this kernel has /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN, on in Debian's and most
 * distributions' kernels): then a process's descendants can be found without reading the whole of /proc.
 */
export function procChildrenSupported(): boolean {
  childrenFiles ??= existsSync(`/proc/${process.pid}/task/${process.pid}/children`);
  return childrenFiles;
}

/**
 * Pids of the children of a process, from the children files of its threads; empty when it is gone. A
 * single-threaded process has one (its thread's id is its pid), which saves listing its task directory.
 */
function childPids(proc: ProcInfo): number[] {
  let tids: string[];
  if (proc.threads === 1) tids = [String(proc.pid)];
  else {
    try {
      tids = readdirSync(`/proc/${proc.pid}/task`);
    } catch {
      return [];
    }
  }
  const pid = proc.pid;
  const out: number[] = [];
  for (const tid of tids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    // "12 34 " (each pid followed by a space)
    for (const child of text.split(/\s+/)) if (child !== '') out.push(Number(child));
  }
  return out;
}

/**
 * The process `root` and its live descendants (root first), found by following the children files
 * (procChildrenSupported() must be true): a few reads per process of the tree, whatever else runs on the
 * machine. Empty when root is gone. A process that forks or exits during the walk may be missed or listed
 * dead: callers sample again, and the kill path repeats its SIGKILLs.
 */
export function descendants(root: number): ProcInfo[] {
  const rootInfo = readProc(root);
  if (!rootInfo) return [];
  const out: ProcInfo[] = [rootInfo];
  const seen = new Set([root]);
  for (let i = 0; i < out.length; i++) {
    for (const pid of childPids(out[i]!)) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      const info = readProc(pid);
      if (info) out.push(info);
    }
  }
  return out;
}

/** Processes whose pids are listed (e.g. from a cgroup.procs file). */
export function procsByPid(pids: Iterable<number>): ProcInfo[] {
  const infos = [...pids].map((pid) => readProc(pid));
  return infos.filter((p): p is ProcInfo => p !== undefined);
}

/** True while the process (pid with this start time) exists and is not a zombie. */
export function isAlive(pid: number, startTime: string): boolean {
  const p = readProc(pid);
  return p !== undefined && p.startTime === startTime && p.state !== 'Z' && p.state !== 'X';
}

/** Sends a signal, ignoring processes that are already gone. */
export function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone; EPERM: not ours (cannot happen for our own tree)
  }
}
