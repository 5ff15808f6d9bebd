/**
 * Per-job cgroup v1 groups (memory and cpu controllers).
 *
 * This machine has a hybrid cgroup layout (v1 controllers, an almost empty cgroup2 at /sys/fs/cgroup/unified)
 * and PID 1 is not systemd, so there is no cgroup v2 delegation to rely on. When the server runs as root and a
 * v1 `memory` (or `cpu`) hierarchy is mounted writable, a job gets its own group *nested under the server's own
 * cgroup* (so whatever supervises the server keeps seeing, accounting and limiting the jobs), in a parent shared
 * by all jobs:
 *
 *   <mount>/<server's cgroup>/gdflow-jobs/gdflow-<jobId>-<random>/
 *
 * The shared parent is for the cpu controller: every group is one scheduling entity with the default weight
 * (cpu.shares 1024, that of one process), so a thousand job groups side by side with the server weighed a thousand
 * times the server whenever they all wanted CPU at once (a thousand sandboxes exiting together held GetTool back
 * for half a second; BENCHMARKS.md, bench:load). Under one parent, all jobs together weigh what one process does
 * when the server (or anything else beside it) needs CPU, and get all of it when nothing else does. The parent
 * has no limits of its own; it is removed with the idle groups when it is empty.
 *
 * A group whose job has ended empty is kept and handed to the next job with that job's limits
 * (creating and removing memory cgroups costs milliseconds); `removeIdleCgroups` removes them.
 *
 * - memory.limit_in_bytes (and memory.memsw.limit_in_bytes when swap accounting exists) = memMb: the kernel
 *   reclaims page cache first and OOM-kills inside the group only when anonymous memory really exceeds the
 *   limit, which is what bwa, samtools, fastp and Java need (an RLIMIT_AS limit would break them on virtual
 *   reservations). `memory.oom_control`'s `oom_kill` counter tells the executor the job was OOM-killed.
 * - cpu.cfs_quota_us = cpu × cpu.cfs_period_us.
 * - cgroup.procs lists every process of the job, including ones that left the process group or session, which
 *   makes killing the whole tree exact.
 *
 * The job's first process is in the group before its first instruction (the native launcher's child joins it
 * before exec; the Node launcher forks it from inside the group, see launcher/launcher-child.ts), so no process of the job
 * can start outside it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { access, constants, readFile, rmdir } from 'node:fs/promises';
import { join } from 'node:path';

interface ControllerDir {
  /** Directory of the server's own cgroup in this controller's hierarchy. */
  base: string;
}

interface Discovery {
  memory?: ControllerDir;
  cpu?: ControllerDir;
}

let discovery: Promise<Discovery> | undefined;

/** Finds writable v1 memory / cpu hierarchies for the current process (cached). */
export function discoverCgroupV1(): Promise<Discovery> {
  discovery ??= discover();
  return discovery;
}

async function discover(): Promise<Discovery> {
  let mountinfo: string;
  let own: string;
  try {
    mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
    own = await readFile('/proc/self/cgroup', 'utf8');
  } catch {
    return {};
  }
  const result: Discovery = {};
  for (const controller of ['memory', 'cpu'] as const) {
    const dir = await controllerDir(controller, mountinfo, own);
    if (dir) result[controller] = dir;
  }
  return result;
}

async function controllerDir(controller: string, mountinfo: string, own: string): Promise<ControllerDir | undefined> {
  // /proc/self/cgroup: "4:memory:/process_api/abc" (v1) – the controllers field may be a list ("2:cpu,cpuacct:/").
  let ownPath: string | undefined;
  for (const line of own.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m && m[1] !== undefined && m[1].split(',').includes(controller)) ownPath = m[2];
  }
  if (ownPath === undefined) return undefined;
  for (const line of mountinfo.split('\n')) {
    // "id parent maj:min root mountpoint options [optional...] - fstype source superoptions"
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    if (right[0] !== 'cgroup') continue;
    const superOptions = (right[2] ?? '').split(',');
    if (!superOptions.includes(controller)) continue;
    const root = unescapeMount(left[3] ?? '/');
    const mountPoint = unescapeMount(left[4] ?? '');
    const mountOptions = (left[5] ?? '').split(',');
    if (!mountPoint || mountOptions.includes('ro')) continue;
    let rel: string;
    if (root === '/') rel = ownPath;
    else if (ownPath === root || ownPath.startsWith(`${root}/`)) rel = ownPath.slice(root.length);
    else continue;
    const base = join(mountPoint, rel);
    try {
      await access(join(base, 'cgroup.procs'), constants.W_OK);
      await access(base, constants.W_OK);
    } catch {
      continue;
    }
    return { base };
  }
  return undefined;
}

function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

export interface CgroupLimits {
  memBytes?: number;
  /** CPU cores; fractional allowed. */
  cpu?: number;
}

/** The CFS period of new groups (the kernel default, 100 ms, unless changed), read once. */
let cfsPeriod: number | undefined;

/** The parent of all job groups in each hierarchy (see the top of this file). */
export const JOBS_GROUP = 'gdflow-jobs';

/**
 * Makes `<base>/gdflow-jobs/<name>`, and the parent when it is missing (the first job, or another server in the
 * same cgroup removed it when it was empty a moment ago).
 */
function makeJobDir(base: string, name: string): string {
  const parent = join(base, JOBS_GROUP);
  const dir = join(parent, name);
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(dir);
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw err;
    }
    try {
      mkdirSync(parent);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Empty groups kept for the next job: creating and removing memory cgroups costs milliseconds. */
const idle: CgroupV1Job[] = [];
const MAX_IDLE = 16;

export class CgroupV1Job {
  /** `oom_kill` of the group when this job got it (a reused group keeps counting). */
  private oomBase = 0;

  private constructor(
    /** Group directories, memory first when present. */
    private readonly dirs: string[],
    private readonly hasMemory: boolean,
    readonly hasMemoryLimit: boolean,
  ) {}

  /**
   * A group for one job with these limits: an idle one from an earlier job when there is one
   * (same controllers), else a new one. Writes to cgroupfs are small and synchronous here: a
   * trip through libuv's thread pool costs more than the write.
   */
  static async create(jobId: string, limits: CgroupLimits, needMemory: boolean): Promise<CgroupV1Job | undefined> {
    const found = await discoverCgroupV1();
    if (needMemory && !found.memory) return undefined;
    if (!found.memory && !found.cpu) return undefined;
    const wantMemory = limits.memBytes !== undefined && limits.memBytes > 0;
    const reused = idle.pop();
    if (reused) {
      try {
        return reused.limit(limits, wantMemory);
      } catch {
        // The kernel refused the new limit (say, below what the last job left charged): start afresh.
        await reused.remove();
      }
    }
    {
      const name = `gdflow-${jobId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80)}-${randomBytes(4).toString('hex')}`;
      const dirs: string[] = [];
      try {
        if (found.memory) dirs.push(makeJobDir(found.memory.base, name));
        if (found.cpu) dirs.push(makeJobDir(found.cpu.base, name));
      } catch (err) {
        for (const dir of dirs.reverse()) await rmdir(dir).catch(() => undefined);
        throw new Error(`cannot set up cgroup for job ${jobId}: ${(err as Error).message}`, { cause: err });
      }
      const job = new CgroupV1Job(dirs, Boolean(found.memory), false);
      try {
        return job.limit(limits, wantMemory);
      } catch (err) {
        await job.remove();
        throw new Error(`cannot set up cgroup for job ${jobId}: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  /** The limits last written to the group, so that a reused group with the same limits is not written again. */
  private written: { memory?: string; quota?: string } = {};

  /** Set (or lift) the limits for the next job and note where its OOM-kill count starts. */
  private limit(limits: CgroupLimits, wantMemory: boolean): CgroupV1Job {
    let hasMemoryLimit = false;
    const written = { ...this.written };
    if (this.hasMemory) {
      const dir = this.dirs[0]!;
      const bytes = wantMemory ? String(limits.memBytes) : '-1';
      if (written.memory !== bytes) {
        delete written.memory; // unknown until the writes below succeed
        // memsw must stay >= mem: raise it first when the limit goes up, lower it last when it goes down.
        try {
          writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), '-1');
        } catch {
          // no swap accounting on this kernel
        }
        writeFileSync(join(dir, 'memory.limit_in_bytes'), bytes);
        if (wantMemory) {
          try {
            writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), bytes);
          } catch {
            // no swap accounting on this kernel
          }
        }
        written.memory = bytes;
      }
      hasMemoryLimit = wantMemory;
    }
    const cpuDir = this.dirs[this.hasMemory ? 1 : 0];
    if (cpuDir) {
      cfsPeriod ??= Number(readFileSync(join(cpuDir, 'cpu.cfs_period_us'), 'utf8').trim()) || 100000;
      const quota = String(limits.cpu !== undefined && limits.cpu > 0 ? Math.max(1000, Math.round(limits.cpu * cfsPeriod)) : -1);
      if (written.quota !== quota) {
        delete written.quota;
        writeFileSync(join(cpuDir, 'cpu.cfs_quota_us'), quota);
        written.quota = quota;
      }
    }
    const job = new CgroupV1Job(this.dirs, this.hasMemory, hasMemoryLimit);
    job.written = written;
    job.oomBase = this.readOomKills();
    return job;
  }

  /** The `cgroup.procs` files a process must write its pid into to join the job's groups. */
  get procsFiles(): string[] {
    return this.dirs.map((d) => join(d, 'cgroup.procs'));
  }

  /** Pids of every process now in the job's group (a synchronous read: cgroupfs lives in memory). */
  pids(): number[] {
    const first = this.dirs[0];
    if (!first) return [];
    try {
      const text = readFileSync(join(first, 'cgroup.procs'), 'utf8');
      return text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map(Number);
    } catch {
      return [];
    }
  }

  private readOomKills(): number {
    if (!this.hasMemory) return 0;
    try {
      const text = readFileSync(join(this.dirs[0]!, 'memory.oom_control'), 'utf8');
      const m = /^oom_kill (\d+)$/m.exec(text);
      return m?.[1] ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }

  /** How many processes the kernel OOM-killed in the group during this job (memory.oom_control `oom_kill`). */
  oomKills(): number {
    if (!this.hasMemoryLimit) return 0;
    return Math.max(0, this.readOomKills() - this.oomBase);
  }

  /** The job is over: keep the group for the next job when it is empty (`knownEmpty`: just checked), else remove it. */
  async destroy(knownEmpty = false): Promise<void> {
    if (idle.length < MAX_IDLE && (knownEmpty || this.pids().length === 0)) {
      idle.push(this);
      return;
    }
    await this.remove();
  }

  /** Removes the groups now (idle groups at shutdown). */
  destroyNow(): Promise<void> {
    return this.remove();
  }

  /**
   * Removes the groups; they must be empty (retries briefly while dying processes leave). The rmdir itself is
   * synchronous: on cgroupfs it takes tens of microseconds (the kernel takes the group offline later), less than
   * a trip through libuv's thread pool, which a thousand jobs ending at once would make a thousand times.
   */
  private async remove(): Promise<void> {
    for (const dir of [...this.dirs].reverse()) {
      for (let attempt = 0; ; attempt++) {
        try {
          rmdirSync(dir);
          break;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') break;
          if (attempt >= 50) break; // give up after ~5 s; a leftover empty group is harmless
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
  }
}

/** Remove the idle groups, and the jobs' parent if no job is left in it (when the executor is done, and in tests). */
export async function removeIdleCgroups(): Promise<void> {
  for (const job of idle.splice(0)) await job.destroyNow();
  const found = await discoverCgroupV1();
  for (const base of [found.memory?.base, found.cpu?.base]) {
    if (!base) continue;
    try {
      rmdirSync(join(base, JOBS_GROUP));
    } catch {
      // jobs of this or another server are still in it, or it is gone
    }
  }
}
