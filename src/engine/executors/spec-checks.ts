/**
 * What every executor checks of a job spec before it runs it, and the working directory it makes for it.
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { posix } from 'node:path';
import { SANDBOX_DATA_DIR, SANDBOX_INPUTS_DIR, type RunSpec } from './executor.js';

/**
 * Checks that `p` is an absolute, normalised path strictly under the working directory `base` (/var/data, or a
 * container job's RunSpec.workDirPath); returns its part after "<base>/".
 */
export function sandboxRelative(p: string, what: string, base = SANDBOX_DATA_DIR): string {
  if (typeof p !== 'string' || p.includes('\0')) throw new Error(`${what}: invalid path`);
  if (posix.normalize(p) !== p || !p.startsWith(`${base}/`) || p.endsWith('/')) {
    throw new Error(`${what}: "${p}" must be a normalised absolute path under ${base}/`);
  }
  const rel = p.slice(base.length + 1);
  if (rel.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) {
    throw new Error(`${what}: "${p}" must be a normalised absolute path under ${base}/`);
  }
  return rel;
}

/** Top directories nothing may be mounted in, nor a working directory be: the kernel's, and the container's log files'. */
const KERNEL_TOPS = new Set(['proc', 'sys', 'dev', '.gdflow']);

/** Whether `p` is a normalised absolute path other than / outside the kernel's directories: a container path. */
export function isContainerPath(p: string): boolean {
  return (
    typeof p === 'string' &&
    !p.includes('\0') &&
    !/[,\n]/.test(p) &&
    posix.normalize(p) === p &&
    p.startsWith('/') &&
    p !== '/' &&
    !p.endsWith('/') &&
    !KERNEL_TOPS.has(p.split('/')[1]!)
  );
}

/** The working directory as the command sees it: /var/data, or a container job's own (RunSpec.workDirPath). */
export function workDirPathOf(spec: Pick<RunSpec, 'workDirPath' | 'image'>): string {
  if (spec.workDirPath === undefined || spec.workDirPath === SANDBOX_DATA_DIR) return SANDBOX_DATA_DIR;
  if (!spec.image) throw new Error(`workDirPath: "${spec.workDirPath}" is for a job in a container; this one runs none`);
  if (!isContainerPath(spec.workDirPath) || spec.workDirPath === SANDBOX_INPUTS_DIR || spec.workDirPath.startsWith(`${SANDBOX_INPUTS_DIR}/`)) {
    throw new Error(`workDirPath: "${spec.workDirPath}" must be a normalised absolute path other than /, outside /proc, /sys, /dev and ${SANDBOX_INPUTS_DIR}`);
  }
  return spec.workDirPath;
}

/**
 * A mount's sandbox path (executor.ts, Mount): its part after "<working directory>/" when it is in the working
 * directory, or undefined when it is in the inputs area (/var/lib/cwl or below), which is outside it, or, in a
 * container (`elsewhere`), at any other container path. Throws for anything else.
 */
export function mountRelative(p: string, base = SANDBOX_DATA_DIR, elsewhere = false): string | undefined {
  if (elsewhere && !p.startsWith(`${base}/`) && isContainerPath(p) && p !== base) return undefined;
  if (typeof p === 'string' && (p === SANDBOX_INPUTS_DIR || p.startsWith(`${SANDBOX_INPUTS_DIR}/`))) {
    if (p.includes('\0') || posix.normalize(p) !== p || p.endsWith('/') || p.split('/').some((seg) => seg === '.' || seg === '..')) {
      throw new Error(`mount: "${p}" must be a normalised absolute path`);
    }
    return undefined;
  }
  return sandboxRelative(p, 'mount', base);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validates what every executor needs from a spec (throws Error naming the problem). */
export function validateSpec(spec: RunSpec): void {
  if (!spec.workDir || !posix.isAbsolute(spec.workDir)) throw new Error(`workDir must be an absolute path: "${spec.workDir}"`);
  if (typeof spec.command !== 'string' || spec.command.includes('\0')) throw new Error('command must be a string without NUL');
  for (const root of spec.roots ?? []) checkRoot(root, spec.workDir);
  const base = workDirPathOf(spec);
  for (const mount of spec.mounts) {
    mountRelative(mount.sandboxPath, base, Boolean(spec.image));
    if (!posix.isAbsolute(mount.hostPath)) throw new Error(`mount: hostPath must be absolute: "${mount.hostPath}"`);
    try {
      lstatSync(mount.hostPath); // a metadata read: cheaper inline than through the thread pool
    } catch {
      throw new Error(`mount: host path does not exist: "${mount.hostPath}"`);
    }
  }
  if (spec.stdin) sandboxRelative(spec.stdin, 'stdin');
  if (spec.stdout) sandboxRelative(spec.stdout, 'stdout');
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    if (!ENV_NAME.test(name)) throw new Error(`env: invalid variable name "${name}"`);
    if (typeof value !== 'string' || value.includes('\0')) throw new Error(`env: invalid value for ${name}`);
  }
}

/** Top-level directories a root may not be in: the system's own (the domain refuses them first: domain/tes/paths.ts). */
const SYSTEM_TOPS = new Set(['bin', 'boot', 'dev', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'proc', 'run', 'sbin', 'sys', 'usr', 'var', '.gdflow']);

/** Checks a root (RunSpec.roots): an absolute, normalised container path outside the system, bound from workDir. */
export function checkRoot(root: { hostPath: string; sandboxPath: string }, workDir: string): void {
  const p = root.sandboxPath;
  if (typeof p !== 'string' || p.includes('\0') || posix.normalize(p) !== p || !p.startsWith('/') || p === '/' || p.endsWith('/') || /[,\n]/.test(p)) {
    throw new Error(`root: "${p}" must be a normalised absolute path other than /`);
  }
  if (SYSTEM_TOPS.has(p.split('/')[1]!)) throw new Error(`root: "${p}" is in a system directory`);
  if (!root.hostPath.startsWith(`${workDir}/`)) throw new Error(`root: its host directory "${root.hostPath}" is not in the job's directory`);
}

/** Check a job spec and make its working directory (unless it exists); returns the directory's real path. */
export async function prepareWorkDir(spec: RunSpec): Promise<string> {
  validateSpec(spec);
  if (!existsSync(spec.workDir)) await mkdir(spec.workDir, { recursive: true });
  return realpathSync(spec.workDir);
}
