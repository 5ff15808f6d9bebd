import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';

/**
 * Makes the tasks root (<dataDir>/tasks) and marks it, where the file system knows the mark, as the top of a
 * directory hierarchy: the 'T' attribute of ext2/3/4 (chattr(1): "subdirectories under this directory are not
 * related, and thus should be spread apart for allocation purposes", as for /home).
 *
 * Why: without it ext4 places each new task directory next to its parent, in the block group where earlier
 * tasks lived and were deleted, and creating each of a job's files and directories there gets slow. An ext4
 * without a journal (this development machine's) walks past every recently deleted inode of the group on each
 * new inode. With the mark, each task gets a block group of its own and its jobs' files stay together in it.
 * Measured with bench:engine's host runs, alternating: machine CPU per job 7.0-7.7 ms with the mark against
 * 8.5-10.9 ms without (BENCHMARKS.md).
 *
 * On other file systems, or without chattr (Debian's e2fsprogs), nothing is marked: the result says why.
 */
export async function prepareTasksRoot(dir: string): Promise<{ marked: true } | { marked: false; why: string }> {
  await mkdir(dir, { recursive: true });
  return new Promise((resolve) => {
    execFile('chattr', ['+T', dir], { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) resolve({ marked: true });
      else resolve({ marked: false, why: (stderr || error.message).trim().split('\n')[0] ?? 'chattr failed' });
    });
  });
}
