/**
 * The resource limits (`--ulimit`) a podman container is given when none are configured.
 *
 * Why any at all: podman asks the OCI runtime for RLIMIT_NOFILE and RLIMIT_NPROC of 1048576 by default, and
 * raising a hard limit needs CAP_SYS_RESOURCE, which root lacks on some machines (a VM's root, a container's):
 * there every `podman run` fails with "error setting rlimit type 7: operation not permitted". So the container
 * gets the server's own limits, which is also what a job of the host sandbox gets.
 *
 * RLIMIT_NPROC is capped at 32768: the container's processes descend from conmon, which podman 4.3 starts with
 * that hard limit (measured: a larger value fails as above even where the server's own limit is higher).
 */
import { readFileSync } from 'node:fs';

const CONMON_NPROC = 32768;

/** soft:hard of one line of /proc/self/limits ("unlimited" kept as such). */
function limitOf(text: string, label: string): [string, string] | undefined {
  const line = text.split('\n').find((l) => l.startsWith(label));
  const match = line ? /\s(\S+)\s+(\S+)\s+\S+\s*$/.exec(line) : null;
  return match ? [match[1]!, match[2]!] : undefined;
}

function capped(value: string, cap: number): string {
  return value === 'unlimited' || Number(value) > cap ? String(cap) : value;
}

export function defaultUlimits(): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return [];
  }
  const out: string[] = [];
  const nofile = limitOf(text, 'Max open files');
  // "unlimited" cannot be given for nofile (the kernel caps it at fs.nr_open): leave it to the runtime then
  if (nofile && nofile[1] !== 'unlimited') out.push(`nofile=${nofile[0] === 'unlimited' ? nofile[1] : nofile[0]}:${nofile[1]}`);
  const nproc = limitOf(text, 'Max processes');
  if (nproc) out.push(`nproc=${capped(nproc[0], CONMON_NPROC)}:${capped(nproc[1], CONMON_NPROC)}`);
  return out;
}
