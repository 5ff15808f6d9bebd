import { readdirSync, readFileSync } from 'node:fs';

/** What the load benchmark reads about the machine's processes (from outside the server, like `ps`). */

interface Entry {
  pid: number;
  ppid: number;
  comm: string;
}

function table(): Entry[] {
  const out: Entry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const open = text.indexOf('(');
      const close = text.lastIndexOf(')');
      const ppid = Number(text.slice(close + 2).split(' ')[1]);
      out.push({ pid: Number(name), ppid, comm: text.slice(open + 1, close) });
    } catch {
      // gone
    }
  }
  return out;
}

/** Descendants of `root` (not root itself), grouped by command name, e.g. { sleep: [pids], bwrap: [...] }. */
export function descendantsByName(root: number): Map<string, number[]> {
  const entries = table();
  const children = new Map<number, Entry[]>();
  for (const e of entries) {
    const list = children.get(e.ppid);
    if (list) list.push(e);
    else children.set(e.ppid, [e]);
  }
  const byName = new Map<string, number[]>();
  const queue = [...(children.get(root) ?? [])];
  for (let i = 0; i < queue.length; i++) {
    const e = queue[i]!;
    const list = byName.get(e.comm);
    if (list) list.push(e.pid);
    else byName.set(e.comm, [e.pid]);
    queue.push(...(children.get(e.pid) ?? []));
  }
  return byName;
}

/** The machine's limits that bound how many jobs (and their processes) can run at once. */
export function machineLimits(): string {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const soft = (name: string) => new RegExp(`^${name}\\s+(\\S+)`, 'm').exec(limits)?.[1] ?? '?';
  const sys = (path: string) => {
    try {
      return readFileSync(path, 'utf8').trim();
    } catch {
      return '?';
    }
  };
  return (
    `max user processes ${soft('Max processes')}, open files ${soft('Max open files')}, ` +
    `pid_max ${sys('/proc/sys/kernel/pid_max')}, threads-max ${sys('/proc/sys/kernel/threads-max')}, ` +
    `user namespaces ${sys('/proc/sys/user/max_user_namespaces')}, processes now ${readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length}`
  );
}
