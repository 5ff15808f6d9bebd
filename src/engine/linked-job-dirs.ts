import { lstatSync, readlinkSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Layout } from './layout.js';

/**
 * Job directories that are links to earlier jobs' (docs/tasks.md, "Call caching"). A task every job of which is a
 * call-cache hit decided at activation ends as it is created: none of its jobs ever runs, writes or loses its outputs,
 * so its hits need no directories of their own. When they all reuse the jobs of one earlier task at the same nodes
 * (a rerun of the same workflow), the task's directory is one symbolic link to that task's (linkTaskDir); else each
 * hit's `<task>/<node>` is a link to the reused job's (linkJobDir). Its outputs and logs are then where they were for
 * every reader (later hits, logs), at the cost of one system call per task or per hit: a new inode per directory was
 * the largest cost of such an activation (four directories per hit, 0.5-2 ms each on a loaded disk; issue 23, item 7).
 *
 * What keeps that safe: a link never leads to a link (a hit on such a hit gets a directory of its own), a task whose
 * jobs may still run keeps no links (domain/tasks/cached-rerun.ts takes them back), deleting a link's task removes the
 * link only (a recursive removal does not follow it), and before the task a link leads into is deleted, the link's
 * task takes the directory over (handOverLinkedDirs).
 */

type JobPlace = { taskId: string; nodeId: string };

const isLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

/** Whether a job's directory is a link, or in a task directory that is one. */
export function isLinkedJobDir(layout: Layout, job: JobPlace): boolean {
  return isLink(layout.taskDir(job.taskId)) || isLink(layout.jobDir(job.taskId, job.nodeId));
}

/**
 * Make task `taskId`'s directory (not made yet) a link to task `sourceTaskId`'s, whose jobs at `nodeIds` are the ones
 * its hits reuse. False, and nothing made, when one of them is a link: the caller then places the hits one by one.
 */
export function linkTaskDir(layout: Layout, sourceTaskId: string, taskId: string, nodeIds: readonly string[]): boolean {
  if (isLink(layout.taskDir(sourceTaskId)) || nodeIds.some((nodeId) => isLink(layout.jobDir(sourceTaskId, nodeId)))) return false;
  const link = layout.taskDir(taskId);
  symlinkSync(relative(dirname(link), layout.taskDir(sourceTaskId)), link);
  return true;
}

/**
 * Make `target`'s directory a link to `source`'s (relative, so that the data root may move), in a task directory made
 * already. False, and nothing made, when the source's directory is itself a link: the caller then places copies.
 */
export function linkJobDir(layout: Layout, source: JobPlace, target: JobPlace): boolean {
  if (isLinkedJobDir(layout, source)) return false;
  const link = layout.jobDir(target.taskId, target.nodeId);
  symlinkSync(relative(dirname(link), layout.jobDir(source.taskId, source.nodeId)), link);
  return true;
}

/** Take back a link made by linkJobDir (a job that is to run gets a directory of its own); nothing when it is none. */
export function unlinkJobDir(layout: Layout, job: JobPlace): void {
  const path = layout.jobDir(job.taskId, job.nodeId);
  if (isLink(path)) unlinkSync(path);
}

/** Where a link leads (absolute), or undefined when `path` is no link. */
function linkTarget(path: string): string | undefined {
  try {
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}

/** Replace the link at `link` by one to `to`. */
function relink(link: string, to: string): void {
  unlinkSync(link);
  symlinkSync(relative(dirname(link), to), link);
}

/**
 * Before task `taskId`'s files go: `readers` (jobs of other tasks that reuse its jobs) whose directories are links
 * into it take over what their links lead to, moved (the task is going: a rename costs nothing and keeps the files'
 * stamps, so later hits on either job still find them intact). A task linked whole takes the whole directory; the
 * first job linked to a directory takes that directory; any other link to the same place is pointed at its new one.
 */
export function handOverLinkedDirs(layout: Layout, taskId: string, readers: readonly JobPlace[]): void {
  const taskDir = layout.taskDir(taskId);
  const moved = new Map<string, string>();
  /** Where `path` (this task's directory, or a job's in it) is after the moves so far. */
  const movedPlace = (path: string): string | undefined => {
    const whole = moved.get(taskDir);
    return moved.get(path) ?? (whole === undefined ? undefined : join(whole, relative(taskDir, path)));
  };
  const links = [...new Set(readers.map((reader) => layout.taskDir(reader.taskId))), ...readers.map((reader) => layout.jobDir(reader.taskId, reader.nodeId))];
  for (const link of links) {
    const target = linkTarget(link);
    if (target === undefined || (target !== taskDir && !target.startsWith(`${taskDir}${sep}`))) continue;
    const now = movedPlace(target);
    if (now !== undefined) relink(link, now);
    else {
      unlinkSync(link);
      renameSync(target, link);
      moved.set(target, link);
    }
  }
}

/**
 * Remove a job's working directory (intermediate cleanup, engine/effects.ts): through a linked directory that would
 * remove the reused job's outputs, so a link is removed instead (its logs are then read through cached_from), and
 * nothing is removed in a task whose directory is a link.
 */
export async function removeWorkDir(layout: Layout, job: JobPlace): Promise<void> {
  if (isLink(layout.taskDir(job.taskId))) return;
  unlinkJobDir(layout, job);
  await rm(layout.workDir(job.taskId, job.nodeId), { recursive: true, force: true, maxRetries: 3 });
}
