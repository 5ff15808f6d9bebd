/**
 * The default executor: each job runs in a bubblewrap (bwrap ≥ 0.8) sandbox.
 *
 * What the command sees:
 * - the host's file system read-only (`--ro-bind / /`), with sensitive places hidden: empty tmpfs over /root,
 *   /home, /run, /tmp (a writable, size-limited tmpfs; TMPDIR=/tmp), over /var (only /var/data and the symlink
 *   /var/tmp -> /tmp are in it, then it is remounted read-only), over /etc/ssh, /etc/ssl/private, /etc/sudoers.d,
 *   /etc/munge, /etc/gdflow, and /dev/null in place of /etc/shadow, /etc/gshadow (and their backups) and
 *   /etc/sudoers; plus every path in the `hidePaths` option (the gdflow data root, work root, database...);
 * - the job's workDir read-write at /var/data (its working directory), and each mount at its sandboxPath;
 * - fresh /dev and /proc; its own user, PID, IPC, UTS (hostname "gdflow"), cgroup and network namespaces
 *   (`--unshare-all`; `--share-net` only when `network` is true, in which case /etc/resolv.conf keeps working
 *   even if it points into the hidden /run);
 * - no capabilities (`--cap-drop ALL`: as root, bwrap would otherwise keep them), no further user namespaces
 *   (`--disable-userns`), a new session (`--new-session`: no TIOCSTI into the server's terminal);
 * - an environment of exactly PATH, HOME=/var/data, TMPDIR=/tmp, LANG=C.UTF-8 and spec.env. bwrap is started with
 *   that environment (the same effect as `--clearenv` + `--setenv`, without putting values such as tokens on
 *   bwrap's command line, where any host user could read them).
 *
 * The job runs in its user namespace as the server's uid, which is the server's uid on the host: files it creates in
 * /var/data belong to the server's user, and it can read host files that user owns unless they are hidden —
 * hence the defaults above and `hidePaths`. A server running as root gives its jobs the uid and gid of nobody
 * (65534) instead of 0: they are the same user on the host, but a tool that believes itself root tries what only
 * root may (tar restoring its archive's owners, which the namespace, mapping one uid, refuses: CWL's directory_output
 * test), where as anyone else it does not.
 *
 * Termination: bwrap runs with `--die-with-parent` and a PID namespace whose init is bwrap's own reaper; when
 * that init dies the kernel SIGKILLs every process in the namespace, including ones that called setsid() or
 * double-forked. See run-process.ts for the SIGTERM → grace → SIGKILL sequence.
 */
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { SANDBOX_DATA_DIR, type ExecutorCapabilities, type RunSpec } from '../executor.js';
import { findInPath } from '../find-in-path.js';
import { missingComponents, removePlaceholders } from '../mount-points.js';
import { mountRelative, prepareWorkDir } from '../spec-checks.js';
import { shellArgv, type LaunchPlan } from './launch-plan.js';
import type { ProcessExecutorOptions } from './options.js';
import { ProcessExecutor } from './process-executor.js';

export interface BwrapExecutorOptions extends ProcessExecutorOptions {
  /** The bwrap binary; default: `bwrap` from the server's PATH, else /usr/bin/bwrap. */
  bwrapPath?: string;
  /** More host paths to hide from jobs (directories get an empty tmpfs, files /dev/null); missing ones are skipped. */
  hidePaths?: string[];
  /** PATH inside the sandbox. */
  path?: string;
  /** Size limit of the sandbox's /tmp when the job has no memory limit (MiB). Default 1024. */
  tmpSizeMb?: number;
}

export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const HIDDEN_DIRS = ['/root', '/home', '/run', '/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d', '/etc/munge', '/etc/gdflow'];
const HIDDEN_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers'];

export class BwrapExecutor extends ProcessExecutor {
  readonly name = 'bwrap';
  readonly capabilities: ExecutorCapabilities = { sandbox: true, network_isolation: true };
  private readonly bwrap: string;

  constructor(protected override readonly options: BwrapExecutorOptions = {}) {
    super(options);
    this.bwrap = options.bwrapPath ?? findInPath('bwrap') ?? '/usr/bin/bwrap';
  }

  private hiddenList: Promise<{ args: string[]; readOnlyTmpfs: string[] }> | undefined;

  /**
   * The binds that hide host places from jobs. Worked out once: the places are fixed for the
   * server's life, and resolving them for every job cost a few dozen file-system calls each.
   */
  private hidden(): Promise<{ args: string[]; readOnlyTmpfs: string[] }> {
    this.hiddenList ??= (async () => {
      const args: string[] = [];
      const readOnlyTmpfs: string[] = [];
      const hide = async (path: string): Promise<void> => {
        let real: string;
        try {
          real = await realpath(path);
        } catch {
          return; // missing: nothing to hide
        }
        if (real === '/' || real === '/tmp' || real === '/var' || real === '/proc' || real === '/dev') return;
        let st;
        try {
          st = await stat(real);
        } catch {
          return;
        }
        if (st.isDirectory()) {
          args.push('--tmpfs', real);
          readOnlyTmpfs.push(real);
        } else {
          args.push('--ro-bind', '/dev/null', real);
        }
      };
      for (const dir of HIDDEN_DIRS) await hide(dir);
      for (const file of HIDDEN_FILES) await hide(file);
      for (const extra of this.options.hidePaths ?? []) await hide(extra);
      return { args, readOnlyTmpfs };
    })();
    return this.hiddenList;
  }

  /** bwrap is there and can make a sandbox here. */
  protected async checkOwnNeeds(): Promise<void> {
    try {
      await access(this.bwrap, fsConstants.X_OK);
    } catch {
      throw new Error(`bubblewrap is not installed or not executable at ${this.bwrap} (Debian: apt-get install bubblewrap)`);
    }
    const args = [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--new-session',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/var',
      '--dir',
      SANDBOX_DATA_DIR,
      '--',
      '/bin/sh',
      '-c',
      'exit 0',
    ];
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(this.bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: SANDBOX_PATH } });
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('error', (err) => {
        clearTimeout(timer);
        resolve({ code: null, stderr: err.message });
      });
      child.once('close', (c) => {
        clearTimeout(timer);
        resolve({ code: c, stderr });
      });
    });
    if (code !== 0) {
      throw new Error(
        `bubblewrap cannot create a sandbox here (${this.bwrap} exited ${code}): ${stderr.trim() || 'no message'}; ` +
          'it needs user namespaces (kernel.unprivileged_userns_clone / user.max_user_namespaces) or root',
      );
    }
  }

  /** bwrap's command line and environment. */
  async launchPlan(spec: RunSpec): Promise<LaunchPlan> {
    const workDir = await prepareWorkDir(spec);

    const roots = spec.roots ?? [];
    const args: string[] = [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      ...(process.getuid?.() === 0 ? ['--uid', '65534', '--gid', '65534'] : []),
      ...(spec.network ? ['--share-net'] : []),
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--new-session',
      '--hostname',
      'gdflow',
      // A job with roots (a TES task's container paths, docs/ga4gh.md) gets a root of its own: a tmpfs with the host's
      // top-level entries bound read-only, but for those its roots are in, so that /data can be made where the host
      // has none (and a root in /mnt hides the host's /mnt). It is made read-only once everything is mounted.
      ...(roots.length === 0 ? ['--ro-bind', '/', '/'] : ['--tmpfs', '/', ...(await hostTopLevel(new Set(roots.map((r) => r.sandboxPath.split('/')[1]!))))]),
      '--dev',
      '/dev',
      '--proc',
      '/proc',
    ];
    const tmpMb = spec.memMb > 0 ? spec.memMb : (this.options.tmpSizeMb ?? 1024);
    args.push('--perms', '1777', '--size', String(Math.max(1, Math.round(tmpMb)) * 1024 * 1024), '--tmpfs', '/tmp');

    const hidden = await this.hidden();
    // A root (its own directory of the job's) covers whatever of the host was hidden below its path.
    const covered = (path: string) => roots.some((r) => path === r.sandboxPath || path.startsWith(`${r.sandboxPath}/`));
    const readOnlyTmpfs = hidden.readOnlyTmpfs.filter((dir) => !covered(dir));
    args.push(...(roots.length === 0 ? hidden.args : withoutCovered(hidden.args, covered)));

    // /var: nothing of the host's (databases, logs, spools); /var/data is the job's directory.
    args.push('--tmpfs', '/var', '--symlink', '../tmp', '/var/tmp');

    if (spec.network) {
      // keep DNS working when /etc/resolv.conf is a symlink into a hidden directory (systemd-resolved: /run/...)
      try {
        const resolv = await realpath('/etc/resolv.conf');
        if (resolv !== '/etc/resolv.conf') args.push('--ro-bind', resolv, resolv);
      } catch {
        // no resolver configuration
      }
    }

    for (const root of roots) args.push('--bind', root.hostPath, root.sandboxPath);
    args.push('--bind', workDir, SANDBOX_DATA_DIR);
    const placeholders: string[] = [];
    for (const mount of spec.mounts) {
      // A mount in the inputs area is made on the /var tmpfs: nothing of it reaches the host.
      const rel = mountRelative(mount.sandboxPath);
      if (rel !== undefined) placeholders.push(...missingComponents(workDir, rel));
      args.push(mount.readOnly ? '--ro-bind' : '--bind', mount.hostPath, mount.sandboxPath);
    }
    for (const dir of readOnlyTmpfs) args.push('--remount-ro', dir);
    args.push('--remount-ro', '/var');
    if (roots.length > 0) args.push('--remount-ro', '/');
    args.push('--chdir', SANDBOX_DATA_DIR);
    args.push('--', ...shellArgv(spec.command, spec.stdin, spec.stdout));

    const env: Record<string, string> = {
      PATH: this.options.path ?? SANDBOX_PATH,
      HOME: SANDBOX_DATA_DIR,
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
      ...(spec.env ?? {}),
    };

    return {
      argv: [this.bwrap, ...args],
      env,
      cwd: workDir,
      termSkipsRoot: true,
      signalGroup: true,
      cleanup: () => Promise.resolve(removePlaceholders(placeholders)),
    };
  }
}

/** The hiding arguments (`--tmpfs P` and `--ro-bind /dev/null P`) but those of the paths `covered` says a root hides. */
function withoutCovered(args: string[], covered: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length;) {
    const width = args[i] === '--tmpfs' ? 2 : 3;
    const group = args.slice(i, i + width);
    if (!covered(group[group.length - 1]!)) out.push(...group);
    i += width;
  }
  return out;
}

let topLevel: Promise<Array<{ name: string; link?: string }>> | undefined;

/**
 * bwrap's arguments that rebuild the host's / on a tmpfs (read-only binds of its top-level entries, its symbolic links
 * as they are), leaving out `skip` and the places the sandbox makes itself. Read once: / does not change.
 */
async function hostTopLevel(skip: Set<string>): Promise<string[]> {
  topLevel ??= (async () => {
    const out: Array<{ name: string; link?: string }> = [];
    for (const entry of await readdir('/', { withFileTypes: true })) {
      if (entry.isSymbolicLink()) out.push({ name: entry.name, link: await readlink(`/${entry.name}`) });
      else if (entry.isDirectory() || entry.isFile()) out.push({ name: entry.name });
    }
    return out;
  })();
  const args: string[] = [];
  for (const entry of await topLevel) {
    if (skip.has(entry.name) || ['proc', 'dev', 'tmp', 'var'].includes(entry.name)) continue;
    if (entry.link !== undefined) args.push('--symlink', entry.link, `/${entry.name}`);
    else args.push('--ro-bind', `/${entry.name}`, `/${entry.name}`);
  }
  return args;
}
