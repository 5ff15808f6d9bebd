import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSpec } from '../executors/executor.js';

/**
 * A deferred run's roots (ResolvedRun.roots: a WDL task's disks at mount points, docs/wdl.md "Disks"): each an empty
 * directory of the job's, bound read-write at its path by the sandboxed executors (RunSpec.roots), as a TES task's
 * container paths are (tes-staging.ts). They are in the job's working directory, hidden, so that they go with the job's
 * other files (a re-run starts without them, deleting the task removes them) and nothing is made outside the data root.
 */

/** Their place in the working directory. */
export const RUN_ROOTS_DIR = '.gdflow-roots';

/** The host directory of the root at `path` (absolute, normalised). */
export const rootHostPath = (workDir: string, path: string): string => join(workDir, RUN_ROOTS_DIR, path);

/** Make the roots' directories; the binds to give the executor: the outermost only, a root inside another being in it. */
export async function makeRunRoots(paths: readonly string[], workDir: string): Promise<NonNullable<RunSpec['roots']>> {
  const inside = (path: string, other: string) => path.startsWith(`${other}/`);
  const outermost = [...new Set(paths)].filter((path) => !paths.some((other) => inside(path, other))).sort();
  await Promise.all(paths.map((path) => mkdir(rootHostPath(workDir, path), { recursive: true })));
  return outermost.map((path) => ({ hostPath: rootHostPath(workDir, path), sandboxPath: path }));
}
