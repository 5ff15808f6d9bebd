import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StagedItem } from '../../domain/tasks/job-spec.js';
import { SANDBOX_DATA_DIR, SANDBOX_INPUTS_DIR, type Mount } from '../executors/executor.js';
import { isContainerPath } from '../executors/spec-checks.js';
import { cloneOrCopyTree, linkOrCopyTree } from '../link-or-copy.js';

/**
 * Laying out a deferred job's run before it starts (job-spec.ts, StagedItem): each File or Directory where its command
 * finds it, from the host files of earlier jobs and of the data store.
 *
 * - In the working directory (`/var/data/...`: InitialWorkDir entries): a writable one is a copy (under CWL's
 *   InplaceUpdateRequirement, the original bound writable over an empty mount point, which stays to be globbed); a read-only one is
 *   linked into it (hard links, or copies across file systems), and, in a sandbox, bound read-only over that, so that
 *   the command cannot change the original through the link while output collection finds the file where it is.
 * - In the inputs area (`/var/lib/cwl/...`, a sandbox's): a host tree of the job's mirrors it, bound at
 *   /var/lib/cwl. Literals are written into it, writable items copied into it, and a read-only item gets an empty
 *   mount point there, over which the original is bound read-only (nothing is copied).
 * - Elsewhere, in a container only (CWL's InitialWorkDir entries at absolute paths): a read-only item is bound at its
 *   path from where it is; a literal or writable one is made in a host tree of the job's and bound from there.
 * - On the host executor, which has no sandbox, inputs are staged in the job's own host directory: read-only items are
 *   linked there (hard links, or copies across file systems), as nothing could make them read-only.
 *
 * Every location must be a file: URI whose real path is inside one of `allowed` (the task's own directory, the
 * account's data store): a location a document made up (`file:///etc/shadow`) is refused, never bound.
 */
export class StagingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StagingError';
  }
}

export interface StagingPlaces {
  /** The job's working directory on the host. */
  readonly workDir: string;
  /** The host tree that mirrors the inputs area, bound at /var/lib/cwl (a sandbox's). */
  readonly inputsTree: string;
  /** Whether the executor has a sandbox; without one, inputs are staged at host paths under `hostStagingRoot`. */
  readonly sandboxed: boolean;
  readonly hostStagingRoot: string;
  /** Where locations may lead (their real paths must be inside one of these). */
  readonly allowed: readonly string[];
  /** Where the command sees the working directory: /var/data, or a container's own (ResolvedRun.workDirPath). */
  readonly workDirPath?: string;
  /** In a container: the host tree where items staged elsewhere (absolute paths) are made, or absent outside one. */
  readonly elsewhereTree?: string;
}

/** Lays the items out; returns the mounts the executor makes (the inputs tree first, then the items over it, in order). */
export async function stageRun(items: readonly StagedItem[], places: StagingPlaces): Promise<Mount[]> {
  const mounts: Mount[] = [];
  let inputsTree: 'none' | 'read-only' | 'writable' = 'none';
  for (const item of items) {
    const source = item.location === undefined ? undefined : await sourceOf(item.location, places.allowed, item.path);
    const area = areaOf(item.path, places);
    await mkdir(dirname(area.target), { recursive: true });
    if (area.kind === 'inputs' && inputsTree === 'none') inputsTree = 'read-only';
    if (source === undefined) await makeLiteral(item, area.target);
    else if (item.inPlace && places.sandboxed) {
      // The original, writable: what the command changes is changed where it is.
      await placeholder(item.class, area.target);
      mounts.push({ hostPath: source, sandboxPath: item.path, readOnly: false });
      if (area.kind === 'inputs') inputsTree = 'writable';
    } else if (item.inPlace) {
      await symlink(source, area.target);
    } else if (item.writable) {
      await cloneOrCopyTree(source, area.target, { writable: true });
      if (area.kind === 'inputs') inputsTree = 'writable';
    } else if (area.kind === 'work') {
      await linkOrCopyTree(source, area.target);
      if (places.sandboxed) mounts.push({ hostPath: source, sandboxPath: item.path, readOnly: true });
    } else if (area.kind === 'inputs') {
      await placeholder(item.class, area.target);
      mounts.push({ hostPath: source, sandboxPath: item.path, readOnly: true });
    } else if (area.kind === 'elsewhere') {
      // The container runtime makes the mount point: nothing to prepare on the host.
      mounts.push({ hostPath: source, sandboxPath: item.path, readOnly: true });
      continue;
    } else {
      // Links, not symbolic links: a tool copying its input (`cp -r`) copies files, not a link out of its directory.
      await linkOrCopyTree(source, area.target);
    }
  }
  // What was made in the elsewhere tree (literals, writable copies) is bound at its path.
  for (const item of items) {
    const area = areaOf(item.path, places);
    const made = item.location === undefined || (item.writable && !item.inPlace);
    if (area.kind === 'elsewhere' && made) mounts.push({ hostPath: area.target, sandboxPath: item.path, readOnly: !item.writable });
  }
  if (inputsTree !== 'none') mounts.unshift({ hostPath: places.inputsTree, sandboxPath: SANDBOX_INPUTS_DIR, readOnly: inputsTree === 'read-only' });
  return mounts;
}

type Area = { kind: 'work' | 'inputs' | 'host' | 'elsewhere'; target: string };

function areaOf(path: string, places: StagingPlaces): Area {
  const normal = posix.normalize(path);
  if (normal !== path || path.split('/').includes('..')) throw new StagingError(`cannot stage anything at ${path}: the path is not normalised`);
  const under = (root: string): string | undefined => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined);
  const workDirPath = places.workDirPath ?? SANDBOX_DATA_DIR;
  const work = under(workDirPath);
  if (work !== undefined) return { kind: 'work', target: join(places.workDir, work) };
  const inputs = places.sandboxed ? under(SANDBOX_INPUTS_DIR) : undefined;
  if (inputs !== undefined) return { kind: 'inputs', target: join(places.inputsTree, inputs) };
  if (!places.sandboxed && under(places.hostStagingRoot) !== undefined) return { kind: 'host', target: path };
  if (places.elsewhereTree !== undefined && isContainerPath(path) && path !== workDirPath && path !== SANDBOX_INPUTS_DIR) {
    return { kind: 'elsewhere', target: join(places.elsewhereTree, path) };
  }
  const where = places.elsewhereTree !== undefined ? ', or other absolute paths outside /proc, /sys and /dev' : '';
  throw new StagingError(`cannot stage anything at ${path}: only the working directory (${workDirPath}) and the inputs area${where} can be`);
}

/** The host path of a location, once its real path is found inside an allowed root. */
async function sourceOf(location: string, allowed: readonly string[], path: string): Promise<string> {
  if (!location.startsWith('file:')) throw new StagingError(`${path}: ${location} is not a file of this server`);
  return allowedPath(location, allowed, `staged at ${path}`);
}

/**
 * The real host path of a file: location whose real path is inside one of `allowed` (symbolic links followed); a
 * StagingError otherwise, naming `what`.
 */
export async function allowedPath(location: string, allowed: readonly string[], what: string): Promise<string> {
  const host = fileURLToPath(location);
  let real: string;
  try {
    real = await realpath(host);
  } catch {
    throw new StagingError(`${host} is missing (${what})`);
  }
  for (const given of allowed) {
    const root = await realpath(given).catch(() => given);
    const inside = relative(root, real);
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) return real;
  }
  throw new StagingError(`${host} is outside the files this task may read (${what})`);
}

async function makeLiteral(item: StagedItem, target: string): Promise<void> {
  if (item.class === 'Directory') await mkdir(target, { recursive: true });
  else await writeFile(target, item.contents ?? '', { mode: item.writable ? 0o644 : 0o444 });
}

/** An empty file or directory to bind over. */
async function placeholder(cls: StagedItem['class'], target: string): Promise<void> {
  if (cls === 'Directory') await mkdir(target, { recursive: true });
  else await writeFile(target, '', { flag: 'a' });
}
