/**
 * The host executor: `/bin/sh -c <command>` as a plain process of the server's user, cwd = workDir.
 *
 * NO ISOLATION. Use it only on trusted single-user setups and for benchmarks: the command can read and write
 * whatever the server's user can, use the network whatever `network` says, and "read-only" mounts are not
 * read-only. Because commands are written against /var/data (docs/wire.md §5):
 * - every `/var/data` path prefix in the command text (and in spec.env values and stdin/stdout) is replaced by
 *   the workDir path (so workDir must not contain shell-special characters);
 * - each mount becomes a symlink at workDir/<path under /var/data> pointing to its hostPath (written relative to
 *   the link when that is shorter, see linkTarget).
 * The environment is PATH (the server's, or the `path` option), HOME=workDir, LANG=C.UTF-8, spec.env and
 * GDFLOW_JOB_TOKEN (a random per-run token used to find the job's processes, see below).
 *
 * The job is its own process group (detached spawn); stopping or timing out kills the group and every
 * descendant found through /proc. Processes that escaped the tree (setsid() + double fork, reparented to
 * PID 1) are still found through the job's cgroup v1 group when available (root), otherwise through
 * GDFLOW_JOB_TOKEN in their environment (a process that scrubs its environment escapes: one more reason this
 * executor is for trusted commands only). When the command ends, processes it left in the background are killed.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readlinkSync, rmdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, posix } from 'node:path';
import type { ExecutorCapabilities, RunSpec } from '../executor.js';
import { prepareWorkDir, sandboxRelative } from '../spec-checks.js';
import { shellArgv, type LaunchPlan } from './launch-plan.js';
import type { ProcessExecutorOptions } from './options.js';
import { ProcessExecutor } from './process-executor.js';

export interface HostExecutorOptions extends ProcessExecutorOptions {
  /** PATH of the jobs; default: the server's PATH. */
  path?: string;
}

const DATA_PREFIX = /(?<![A-Za-z0-9_./-])\/var\/data(?![A-Za-z0-9_.-])/g;
const SHELL_SAFE = /^[A-Za-z0-9_./+,:@%=-]+$/;

/** Replaces every path prefix `from` (a whole path component sequence) in `text` by `to`. */
export function rewritePrefix(text: string, from: string, to: string): string {
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![A-Za-z0-9_./-])${escaped}(?![A-Za-z0-9_.-])`, 'g'), () => to);
}

/** Replaces every `/var/data` path prefix in `text` by `workDir`. */
export function rewriteDataPaths(text: string, workDir: string): string {
  return text.replace(DATA_PREFIX, () => workDir);
}

export class HostExecutor extends ProcessExecutor {
  readonly name = 'host';
  readonly capabilities: ExecutorCapabilities = { sandbox: false, network_isolation: false };

  constructor(protected override readonly options: HostExecutorOptions = {}) {
    super(options);
  }

  /** Nothing beyond /bin/sh. */
  protected async checkOwnNeeds(): Promise<void> {}

  /** The links of the job's mounts made, its command line and environment. */
  async launchPlan(spec: RunSpec): Promise<LaunchPlan> {
    const workDir = await prepareWorkDir(spec);
    if (!SHELL_SAFE.test(workDir)) {
      throw new Error(`host executor: workDir "${workDir}" contains characters that are special to the shell`);
    }
    // The links and their directories are made (and removed, see removeCreated) with synchronous calls: on a local
    // disk each takes a fraction of a millisecond, less than a trip through libuv's thread pool under load. (This
    // executor is for trusted single-machine setups; the work root is not expected on a network file system.)
    const created: string[] = [];
    for (const mount of spec.mounts) {
      const link = posix.join(workDir, sandboxRelative(mount.sandboxPath, 'mount'));
      const firstDir = mkdirSync(dirname(link), { recursive: true });
      if (firstDir) created.push(firstDir);
      const target = linkTarget(dirname(link), mount.hostPath);
      try {
        symlinkSync(target, link);
        created.push(link);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const st = lstatSync(link);
        if (!st.isSymbolicLink() || readlinkSync(link) !== target) {
          throw new Error(`host executor: ${mount.sandboxPath} already exists in the work directory`, { cause: err });
        }
      }
    }
    const env: Record<string, string> = {
      PATH: this.options.path ?? process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: workDir,
      LANG: 'C.UTF-8',
    };
    for (const [name, value] of Object.entries(spec.env ?? {})) env[name] = rewriteDataPaths(value, workDir);
    const marker = `${randomBytes(12).toString('hex')}`;
    env.GDFLOW_JOB_TOKEN = marker;
    const stdin = spec.stdin ? rewriteDataPaths(spec.stdin, workDir) : undefined;
    const stdout = spec.stdout ? rewriteDataPaths(spec.stdout, workDir) : undefined;
    let command = rewriteDataPaths(spec.command, workDir);
    // Roots (a TES task's container paths, docs/ga4gh.md) are rewritten as /var/data is: the host has no namespaces to
    // bind them in, so their paths in the command become their host directories.
    for (const root of [...(spec.roots ?? [])].sort((a, b) => b.sandboxPath.length - a.sandboxPath.length)) {
      if (!SHELL_SAFE.test(root.hostPath))
        throw new Error(`host executor: root directory "${root.hostPath}" contains characters that are special to the shell`);
      command = rewritePrefix(command, root.sandboxPath, root.hostPath);
    }
    return {
      argv: shellArgv(command, stdin, stdout),
      env,
      cwd: workDir,
      termSkipsRoot: false,
      signalGroup: true,
      envMarker: `GDFLOW_JOB_TOKEN=${marker}`,
      cleanup: () => Promise.resolve(removeCreated(workDir, created)),
    };
  }
}

/**
 * What a mount's symlink holds: the host path, or the same path relative to the link's directory when that is
 * shorter. ext4 keeps a target under 60 bytes in the inode itself (a "fast" symlink); a longer one takes a data
 * block, which made creating and removing a link several times slower here (unlink: ~100 us instead of ~5 us),
 * and a job's inputs in another job's directory are a short walk away. The link's directory is a real path (the
 * workDir is resolved, the directories below it are made here), so `..` in the target climbs exactly the
 * directories the absolute path names.
 */
function linkTarget(linkDir: string, hostPath: string): string {
  const rel = posix.relative(linkDir, hostPath);
  return rel !== '' && rel.length < hostPath.length ? rel : hostPath;
}

/** Removes the mount symlinks (if still symlinks) and then the directories made for them (if empty), deepest first. */
function removeCreated(workDir: string, created: string[]): void {
  const links = new Set<string>();
  const dirs = new Set<string>();
  for (const path of created) {
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) links.add(path);
      else if (st.isDirectory()) {
        // mkdir -p returned the first directory it made; all below it up to the link's parent were made too
        dirs.add(path);
      }
    } catch {
      // gone
    }
  }
  for (const link of links) {
    try {
      unlinkSync(link);
    } catch {
      // gone
    }
    for (let dir = dirname(link); dir.length > workDir.length && dir.startsWith(`${workDir}/`); dir = dirname(dir)) {
      if (![...dirs].some((d) => dir === d || dir.startsWith(`${d}/`))) break;
      try {
        rmdirSync(dir);
      } catch {
        break; // not empty: the job put files there
      }
    }
  }
}
