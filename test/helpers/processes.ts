import { readdir, readFile } from 'node:fs/promises';

/**
 * Live (not zombie, not dead) processes other than this one whose command line (NULs read as spaces)
 * satisfies `match`: how tests find a job's processes and check that none survived.
 */
export async function liveProcesses(match: (cmdline: string) => boolean): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = (await readFile(`/proc/${name}/cmdline`, 'utf8')).replace(/\0/g, ' ');
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (match(cmdline) && state !== 'Z' && state !== 'X') found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

/** The nearest ancestor of `pid` whose command line contains `marker`. */
export async function ancestorMatching(pid: number, marker: string): Promise<number | undefined> {
  for (let current = pid; current > 1;) {
    const stat = await readFile(`/proc/${current}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if ((await readFile(`/proc/${ppid}/cmdline`, 'utf8')).includes(marker)) return ppid;
    current = ppid;
  }
  return undefined;
}
