/**
 * Small /proc readers used to find, sample and kill a job's process tree (Linux only).
 *
 * They read synchronously: /proc is generated in memory, a read takes microseconds, and a trip
 * through libuv's thread pool costs more than that (and delays every job's end under load).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** Clock ticks after boot; with the pid it identifies a process even if the pid is reused later. */
  startTime: string;
  rssBytes: number;
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
  if (state === undefined || startTime === undefined || !Number.isFinite(ppid)) return undefined;
  return { pid, ppid, pgid, state, startTime, rssBytes: Number.isFinite(rssPages) ? rssPages * pageSize : 0 };
}

/** The pids listed in /proc, as its directory names. */
function procPidNames(): string[] {
  try {
    return readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n));
  } catch {
    return [];
  }
}

/** Every process on the machine (that we can read). */
export function allProcs(): ProcInfo[] {
  return procsByPid(procPidNames().map(Number));
}

/** The process `root` and all its live descendants (root first); empty when root is gone. */
export function processTree(root: number): ProcInfo[] {
  const procs = allProcs();
  const children = new Map<number, ProcInfo[]>();
  let rootInfo: ProcInfo | undefined;
  for (const p of procs) {
    if (p.pid === root) rootInfo = p;
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  if (!rootInfo) return [];
  const out: ProcInfo[] = [rootInfo];
  for (let i = 0; i < out.length; i++) {
    const parent = out[i];
    if (!parent) continue;
    for (const child of children.get(parent.pid) ?? []) out.push(child);
  }
  return out;
}

/**
 * Processes whose environment contains `entry` ("NAME=value"): finds a job's processes that escaped its tree
 * (setsid + double fork) as long as they kept the inherited environment. Reads /proc/<pid>/environ, which needs
 * the same uid or root.
 */
export function procsWithEnv(entry: string): ProcInfo[] {
  const needle = Buffer.from(`${entry}\0`);
  const hits: ProcInfo[] = [];
  for (const n of procPidNames()) {
    try {
      const env = readFileSync(`/proc/${n}/environ`);
      const at = env.indexOf(needle);
      const info = at === 0 || (at > 0 && env[at - 1] === 0) ? readProc(Number(n)) : undefined;
      if (info) hits.push(info);
    } catch {
      // gone, or not ours to read
    }
  }
  return hits;
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
