import { constants as fsConstants, linkSync } from 'node:fs';
import { chmod, copyFile, link, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Placing a file that exists at one path at another: a hard link, else a copy by reflink, else a plain copy. The call
 * cache (outputs and logs of the job a hit reuses), staging (read-only inputs of a CWL or WDL step), and the logs of a
 * hit handed over before a task is deleted all do it; TES inputs, and writable staged inputs, are copies only
 * (cloneOrCopy).
 *
 * Why a hard link first: it is a second name for the same file, so nothing is read or written and nothing is stored
 * twice, whatever the file's size. That is only safe for files nobody writes again: a succeeded job's outputs and logs
 * (a job never runs again in place, and the call cache checks their stamps before it reuses them) and inputs the
 * command may only read (bound read-only over the link in a sandbox; the host executor has none, docs/cwl.md). A
 * command that may write where its input is gets a copy: through a link it would change the original.
 *
 * Why a copy when the link fails: a link cannot cross file systems (EXDEV: the data store and the tasks' directories
 * mounted on different disks), and a file system may refuse one (EPERM: protected_hardlinks for a file of another
 * user, or no hard links at all; EMLINK: too many links). The copy is a reflink (a copy-on-write clone that shares the
 * source's blocks until either file is written) where the file system makes them (btrfs, XFS with reflink), so a
 * copy on the same disk costs no bytes either; elsewhere (ext4, tmpfs, across disks) the bytes are copied.
 */

export interface LinkOrCopyOptions {
  /**
   * A file already at `target`:
   * - 'remove': removed first, so the target becomes a new name of the source. For a target that may be there (a job
   *   run again in place of one whose outputs are there): the file there may be another job's output linked in, which
   *   writing over it would change.
   * - 'copy-over': not looked for (a call saved per file, for a target in a directory just made). Should one be there
   *   after all, the link fails (EEXIST) and the source is copied over it: into the same file, so any other name of
   *   that file changes too; one that is the source's file already is left as it is.
   */
  existingTarget: 'remove' | 'copy-over';
  /**
   * A source that is not there (ENOENT from the link; the target's directory missing gives it too):
   * - 'throw': the copy is tried and its ENOENT thrown.
   * - 'skip': nothing is placed and 'missing' returned (a log that a job never wrote).
   */
  missingSource: 'throw' | 'skip';
  /**
   * Make the link with a synchronous call instead of through libuv's thread pool: a link is a quick call on the inode
   * cache, and when an activation places a whole task's files the trip through the pool cost more than the call.
   * A copy, which may be long, always goes through the pool.
   */
  syncLink?: boolean;
}

/** What was placed at the target; 'copied' may have been a reflink. */
export type Placed = 'linked' | 'copied' | 'missing';

/** A hard link of `source` at `target`, else a copy by reflink, else a plain copy (see the options for the cases). */
export async function linkOrCopy(source: string, target: string, options: LinkOrCopyOptions): Promise<Placed> {
  if (options.existingTarget === 'remove') await rm(target, { force: true });
  try {
    if (options.syncLink) linkSync(source, target);
    else await link(source, target);
    return 'linked';
  } catch (error) {
    if (options.missingSource === 'skip' && (error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    await cloneOrCopy(source, target);
    return 'copied';
  }
}

/**
 * A copy of `source` at `target`, by reflink where the file system can make one, else the bytes copied. A file
 * already at `target` is written over in place (the same file, truncated), and takes the source's mode.
 */
export function cloneOrCopy(source: string, target: string): Promise<void> {
  return copyFile(source, target, fsConstants.COPYFILE_FICLONE);
}

/**
 * linkOrCopy over a tree: directories made (their modes are not copied), regular files placed with 'copy-over' and
 * 'throw', anything else (symbolic links, which could lead out of the tree; devices, sockets) left out. A missing
 * `source` throws.
 */
export async function linkOrCopyTree(source: string, target: string): Promise<void> {
  const info = await lstat(source);
  if (info.isDirectory()) {
    await mkdir(target, { recursive: true });
    for (const name of await readdir(source)) await linkOrCopyTree(join(source, name), join(target, name));
  } else if (info.isFile()) {
    await linkOrCopy(source, target, { existingTarget: 'copy-over', missingSource: 'throw' });
  }
}

/**
 * cloneOrCopy over a tree, for a copy the command may change (a writable staged input, a TES input directory):
 * directories made, regular files copied, anything else left out. Symbolic links above all: the copy is made by the
 * server, outside any sandbox, so following one (a link a job wrote into its output directory, pointing at the
 * server's own files) would copy what no job may read into the next job's directory. With `writable`, directories
 * get mode 755 and files 644 whatever the source's (a store's files are read-only). A missing `source` throws.
 */
export async function cloneOrCopyTree(source: string, target: string, options: { writable: boolean }): Promise<void> {
  const info = await lstat(source);
  if (info.isDirectory()) {
    await mkdir(target, { recursive: true });
    for (const name of await readdir(source)) await cloneOrCopyTree(join(source, name), join(target, name), options);
    if (options.writable) await chmod(target, 0o755);
  } else if (info.isFile()) {
    await cloneOrCopy(source, target);
    if (options.writable) await chmod(target, 0o644);
  }
}
