import { posix } from 'node:path';
import { invalid } from '../errors.js';

/**
 * Paths inside a TES task's container (docs/ga4gh.md, "Paths"). A task's files live in its job directory: paths under
 * /var/data are in it directly, and every other directory a task names (an input's, an output's, a volume, a
 * workdir, /tmp) is a "root": a directory of the job directory the executor binds at that path, so that it is the
 * task's own, is kept between its executors and is read back afterwards.
 */

/** Where the job directory appears (the executors' SANDBOX_DATA_DIR). */
export const JOB_DIR = '/var/data';
/** gdflow's own files of a TES task, inside its job directory: roots, executor logs and exit codes. */
export const TES_DIR = `${JOB_DIR}/.gdflow-tes`;
/** The same, relative to the job directory. */
export const TES_DIR_RELATIVE = '.gdflow-tes';

/** Directories a task may not put files in: the system's own, which a root would hide. */
const SYSTEM_DIRS = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/sys', '/usr', '/var', '/.gdflow'];

export const isUnder = (path: string, dir: string): boolean => path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);

/** The system directory `path` is in (a sandbox's own, or one a directory bound there would hide), or undefined. */
export const systemDirOf = (path: string): string | undefined => SYSTEM_DIRS.find((dir) => isUnder(path, dir));

/** A container path as a task may give it: absolute, normalised, not in the system's directories nor in gdflow's own. */
export function checkContainerPath(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalid(`${field} must be an absolute path in the container`);
  if (value.length > 1024) throw invalid(`${field} is longer than 1024 characters`);
  if (/[\0\n\r,]/.test(value)) throw invalid(`${field} '${value.slice(0, 200)}' holds a NUL, a line break or a comma, which no container mount can carry`);
  const trimmed = value.length > 1 && value.endsWith('/') ? value.slice(0, -1) : value;
  if (!trimmed.startsWith('/') || posix.normalize(trimmed) !== trimmed)
    throw invalid(`${field} '${value.slice(0, 200)}' must be an absolute, normalised path (no ., .. or //)`);
  if (trimmed === '/') throw invalid(`${field} may not be / itself`);
  if (isUnder(trimmed, TES_DIR)) throw invalid(`${field} '${trimmed}' is inside ${TES_DIR}, which is gdflow's own`);
  if (!isUnder(trimmed, JOB_DIR)) {
    const system = systemDirOf(trimmed);
    if (system)
      throw invalid(`${field} '${trimmed}' is in ${system}, a directory of the system a task cannot put files in (use /data, /tmp, /mnt or ${JOB_DIR})`);
  }
  return trimmed;
}

/** The directory that must exist for a file at `path` (a file directly in / has none a task may use). */
export function parentDir(path: string, field: string): string {
  const dir = posix.dirname(path);
  if (dir === '/') throw invalid(`${field} '${path}' is directly in /; put it in a directory such as /data`);
  return dir;
}

/** The roots of a task: the directories it names outside the job directory, none inside another, /tmp always. */
export function rootsOf(dirs: readonly string[]): string[] {
  const candidates = [...new Set(['/tmp', ...dirs])].filter((dir) => !isUnder(dir, JOB_DIR)).sort((a, b) => a.length - b.length);
  const roots: string[] = [];
  for (const dir of candidates) if (!roots.some((root) => isUnder(dir, root))) roots.push(dir);
  return roots.sort();
}

/** A container path's place relative to the job directory: in it, or in the root that holds it. */
export function jobRelativePath(path: string, roots: readonly string[]): string {
  if (isUnder(path, JOB_DIR)) return path === JOB_DIR ? '.' : path.slice(JOB_DIR.length + 1);
  const root = roots.find((r) => isUnder(path, r));
  if (!root) throw new Error(`container path ${path} is in none of the task's roots`);
  return `${TES_DIR_RELATIVE}/root${path}`;
}
