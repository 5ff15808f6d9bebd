/**
 * Reading the whole of /proc, for what a job's own processes cannot tell: processes that left its tree
 * (found by an environment marker, when the job has no cgroup) and, on kernels without
 * /proc/<pid>/task/<tid>/children, the tree itself.
 *
 * Such a scan costs a read or two per process on the machine, and with a thousand jobs running there are
 * thousands of processes. So a scan is shared: every caller that asks while a scan is under way is answered by
 * the next one (which begins after they asked, so it sees every process they could mean), a single scan
 * answers any number of callers, and it reads /proc in budgeted slices (turn-budget.ts) rather than in one go.
 */
import { readFileSync } from 'node:fs';
import { procPidNames, readProc, type ProcInfo } from './proctree.js';
import { budgeted } from './turn-budget.js';

/** What one scan saw. */
export class ProcTable {
  private readonly children = new Map<number, ProcInfo[]>();

  constructor(
    readonly procs: Map<number, ProcInfo>,
    /** "NAME" -> value -> processes whose environment holds NAME=value (for the names asked for). */
    private readonly byEnv: Map<string, Map<string, ProcInfo[]>>,
  ) {
    for (const p of procs.values()) {
      const list = this.children.get(p.ppid);
      if (list) list.push(p);
      else this.children.set(p.ppid, [p]);
    }
  }

  /** The process `root` and all its descendants (root first); empty when root was gone. */
  tree(root: number): ProcInfo[] {
    const rootInfo = this.procs.get(root);
    if (!rootInfo) return [];
    const out: ProcInfo[] = [rootInfo];
    for (let i = 0; i < out.length; i++) for (const child of this.children.get(out[i]!.pid) ?? []) out.push(child);
    return out;
  }

  /** Processes whose environment holds `entry` ("NAME=value"); NAME must have been asked for in the scan. */
  withEnv(entry: string): ProcInfo[] {
    const eq = entry.indexOf('=');
    return this.byEnv.get(entry.slice(0, eq))?.get(entry.slice(eq + 1)) ?? [];
  }
}

/** Processes read per budgeted piece: small enough that a piece takes well under the turn budget. */
const PIECE = 32;

/** The value of variable `name` in an environ block (NUL-separated "NAME=value" entries), if set. */
function envValue(environ: Buffer, needle: Buffer): string | undefined {
  for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
    if (at > 0 && environ[at - 1] !== 0) continue; // the end of another entry
    const start = at + needle.length;
    const end = environ.indexOf(0, start);
    return environ.toString('utf8', start, end < 0 ? environ.length : end);
  }
  return undefined;
}

async function scan(envNames: string[]): Promise<ProcTable> {
  const pids = procPidNames();
  const procs = new Map<number, ProcInfo>();
  const needles = envNames.map((name) => ({ name, needle: Buffer.from(`${name}=`) }));
  const byEnv = new Map<string, Map<string, ProcInfo[]>>(envNames.map((name) => [name, new Map()]));
  const pieces: Array<Promise<void>> = [];
  for (let i = 0; i < pids.length; i += PIECE) {
    const slice = pids.slice(i, i + PIECE);
    pieces.push(
      budgeted(() => {
        for (const name of slice) {
          const pid = Number(name);
          const info = readProc(pid);
          if (!info) continue;
          procs.set(pid, info);
          if (needles.length === 0) continue;
          let environ: Buffer;
          try {
            environ = readFileSync(`/proc/${name}/environ`); // needs the same uid, or root
          } catch {
            continue; // gone, or not ours to read
          }
          for (const { name: variable, needle } of needles) {
            const value = envValue(environ, needle);
            if (value === undefined) continue;
            const values = byEnv.get(variable)!;
            const list = values.get(value);
            if (list) list.push(info);
            else values.set(value, [info]);
          }
        }
      }),
    );
  }
  await Promise.all(pieces);
  return new ProcTable(procs, byEnv);
}

interface Batch {
  envNames: Set<string>;
  waiters: Array<{ resolve: (table: ProcTable) => void; reject: (error: unknown) => void }>;
}

/** The callers that the next scan answers. */
let next: Batch | undefined;
let scanning = false;

async function runScans(): Promise<void> {
  try {
    while (next) {
      const batch = next;
      next = undefined;
      try {
        const table = await scan([...batch.envNames]);
        for (const w of batch.waiters) w.resolve(table);
      } catch (error) {
        for (const w of batch.waiters) w.reject(error);
      }
    }
  } finally {
    scanning = false;
  }
}

/**
 * Every process on the machine (that can be read), from a scan that begins after this call; with `envName`,
 * also which processes carry which value of that environment variable (ProcTable.withEnv).
 */
export function scanProcesses(envName?: string): Promise<ProcTable> {
  return new Promise<ProcTable>((resolve, reject) => {
    next ??= { envNames: new Set(), waiters: [] };
    if (envName) next.envNames.add(envName);
    next.waiters.push({ resolve, reject });
    if (!scanning) {
      scanning = true;
      // Begin in the next check phase, so that the callers of this turn share the scan.
      setImmediate(() => void runScans());
    }
  });
}
