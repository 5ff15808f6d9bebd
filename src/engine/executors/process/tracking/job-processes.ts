/**
 * The processes of one running job: finding them, sampling them, signalling them and sweeping up what is left.
 *
 * Finding a job's processes costs in proportion to the job, not to the machine (a server may run a thousand
 * jobs at once, BENCHMARKS.md, bench:load):
 * - with a cgroup, they are its members (`cgroup.procs`): the job is born in its group, and leaving it takes a
 *   write to cgroupfs, which a bwrap job cannot make (read-only, no capabilities) and a host job running as root
 *   could, like anything else (the host executor is for trusted commands); the kill path walks the tree too;
 * - without one, they are the first process and its descendants, walked through the kernel's
 *   /proc/<pid>/task/<tid>/children files; on a kernel without those files, they come from a scan of all of
 *   /proc that one sampling tick shares between all jobs (proc-scan.ts);
 * - a host job without a cgroup can also have processes that left the tree (setsid() and a double fork): those
 *   carry its environment marker, which only a scan of /proc finds. The kill path scans (shared and in slices
 *   as well); sampling does not, and keeps such processes in view as long as an earlier sample saw them.
 * Samples are taken by one sampler for all jobs (sampler.ts); samples, kills and sweeps of many jobs at once are
 * spread over turns of the event loop (turn-budget.ts).
 */
import type { LaunchPlan } from '../launch-plan.js';
import type { CgroupV1Job } from './cgroup.js';
import { scanProcesses, type ProcTable } from './proc-scan.js';
import { descendants, isAlive, procChildrenSupported, procsByPid, signalPid, type ProcInfo } from './proctree.js';
import { budgeted } from './turn-budget.js';

/** What a sample saw of the job's processes. */
export interface ProcessSample {
  /** How many processes the job has now. */
  count: number;
  /** Their summed resident memory (bytes), zombies left out. */
  rssBytes: number;
}

export class JobProcesses {
  /** Set once the first process has exited: its process group may then be signalled even when it is spared. */
  exited = false;
  /** Without a cgroup or children files, the job's tree shows only in a scan of all of /proc (proc-scan.ts). */
  readonly needsTable: boolean;
  /** pid -> start time of every job process ever seen (a pid reused by another process is never taken for it). */
  private readonly known = new Map<number, string>();
  /** The job's tree can be walked from its first process through the children files (proctree.ts). */
  private readonly walkTree: boolean;
  /** Without a cgroup, processes that escaped the tree are found by their environment marker, in a scan. */
  private readonly marker: string | undefined;
  private readonly markerName: string | undefined;
  /** Whether the kill path needs a scan of /proc as well as what it finds at once. */
  private readonly killScans: boolean;

  constructor(
    /** The first process; undefined when the job never started. */
    private readonly rootPid: number | undefined,
    private readonly cg: CgroupV1Job | undefined,
    /** The launcher, whose pid is never one of the job's (the Node launcher visits a job's group while it forks). */
    private readonly launcher: { readonly pid: number | undefined },
    private readonly plan: Pick<LaunchPlan, 'signalGroup' | 'envMarker'>,
    tracking: 'auto' | 'scan',
  ) {
    this.walkTree = tracking === 'auto' && procChildrenSupported();
    this.needsTable = !cg && !this.walkTree;
    this.marker = !cg ? plan.envMarker : undefined;
    this.killScans = this.needsTable || this.marker !== undefined;
    this.markerName = this.marker?.slice(0, this.marker.indexOf('='));
  }

  /** One sample: the job's processes now and their RSS; undefined once the first process has exited. */
  sample(table: ProcTable | undefined): ProcessSample | undefined {
    if (this.exited) return undefined;
    // With a cgroup its members are the job (see the top of this file); the kill path also walks the tree.
    const procs = this.cg ? this.members() : this.tree(table);
    let rssBytes = 0;
    const current = new Set<number>();
    for (const p of procs) {
      this.known.set(p.pid, p.startTime);
      current.add(p.pid);
      if (p.state !== 'Z') rssBytes += p.rssBytes;
    }
    // forget processes that are gone; keep the ones that left the tree (setsid + orphaned) but still run
    for (const [pid, start] of this.known) if (!current.has(pid) && !isAlive(pid, start)) this.known.delete(pid);
    return { count: procs.length, rssBytes };
  }

  /**
   * Signals the whole job: at once what its cgroup and its tree show, then, when that may not be all, what a
   * scan of /proc shows (a scan shared with every other job that needs one now). Never rejects.
   */
  async signalAll(sig: NodeJS.Signals, skipRoot: boolean): Promise<void> {
    const atOnce = budgeted(() => this.signalFound([...this.members(), ...this.tree()], sig, skipRoot, false));
    if (!this.killScans) return atOnce.catch(() => undefined);
    const marker = this.marker;
    const scanned = scanProcesses(this.markerName).then((table) =>
      budgeted(() => this.signalFound([...(this.needsTable ? this.tree(table) : []), ...(marker ? table.withEnv(marker) : [])], sig, skipRoot, true)),
    );
    await Promise.all([atOnce, scanned]).catch(() => undefined);
  }

  /**
   * Kills what is left of the job once its first process has exited; true when nothing was left in its cgroup at
   * the end. Each look is a budgeted piece, so that a thousand jobs ending at once do not hold the event loop together.
   */
  async sweep(): Promise<boolean> {
    const deadline = Date.now() + 5000;
    // Poll quickly at first: a sandbox's processes are usually gone a few milliseconds after
    // its first process, and every job pays this wait.
    let pause = 2;
    for (;;) {
      // Without a cgroup, what escaped the tree is found by its marker in a scan (shared with other jobs).
      const table = this.marker ? await scanProcesses(this.markerName) : undefined;
      const look = await budgeted(() => this.sweepOnce(table, deadline));
      if (look.done) return look.empty;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 50);
    }
  }

  /** One look of the sweep: SIGKILL to what is left; done when nothing is (or time is up). */
  private sweepOnce(table: ProcTable | undefined, deadline: number): { done: boolean; empty: boolean } {
    const { cg, marker, rootPid } = this;
    const procs = cg ? procsByPid(cg.pids()) : table && marker ? table.withEnv(marker) : [];
    const left: number[] = [];
    for (const p of procs) {
      if (p.state === 'Z' || p.pid === this.launcher.pid || (table && !isAlive(p.pid, p.startTime))) continue;
      left.push(p.pid);
    }
    for (const [pid, start] of this.known) if (pid !== rootPid && isAlive(pid, start)) left.push(pid);
    if (this.plan.signalGroup && rootPid !== undefined) signalPid(-rootPid, 'SIGKILL');
    if (left.length === 0) return { done: true, empty: procs.length === 0 }; // a zombie still listed: let destroy() look again
    if (Date.now() > deadline) return { done: true, empty: false };
    for (const pid of left) signalPid(pid, 'SIGKILL');
    return { done: false, empty: false };
  }

  /** The tree of the first process: from `table` when given, else through the children files (when usable). */
  private tree(table?: ProcTable): ProcInfo[] {
    if (this.rootPid === undefined) return [];
    if (table) return table.tree(this.rootPid);
    return this.walkTree ? descendants(this.rootPid) : [];
  }

  /** The members of the job's cgroup, the launcher left out. */
  private members(): ProcInfo[] {
    return this.cg ? procsByPid(this.cg.pids()).filter((p) => p.pid !== this.launcher.pid) : [];
  }

  /**
   * Signals every process of the job that `found` lists, or an earlier sample saw and still runs (pid and start
   * time). Processes listed by a scan are checked again first: the scan may be some milliseconds old.
   */
  private signalFound(found: ProcInfo[], sig: NodeJS.Signals, skipRoot: boolean, fromScan: boolean): void {
    const targets = new Set<number>();
    for (const p of found) {
      if (p.state === 'Z' || (fromScan && !isAlive(p.pid, p.startTime))) continue;
      this.known.set(p.pid, p.startTime);
      targets.add(p.pid);
    }
    for (const [pid, start] of this.known) if (!targets.has(pid) && isAlive(pid, start)) targets.add(pid);
    const rootPid = this.rootPid;
    if (this.plan.signalGroup && rootPid !== undefined && !(skipRoot && !this.exited)) signalPid(-rootPid, sig);
    for (const pid of targets) {
      if (skipRoot && pid === rootPid) continue;
      signalPid(pid, sig);
    }
  }
}
