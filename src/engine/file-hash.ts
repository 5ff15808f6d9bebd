import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { FileHash, FileStamp } from '../store/store.js';

/** The sha256 of a file's content, streamed (files may be many gigabytes). */
export function sha256OfFile(path: string): Promise<string> {
  return digestOfFile(path, 'sha256');
}

/** A digest (hex) of a file's content, streamed; `algorithm` as node:crypto names it (CWL checksums are sha1). */
export function digestOfFile(path: string, algorithm: 'sha1' | 'sha256'): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash(algorithm);
    createReadStream(path)
      .on('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')));
  });
}

export async function stampOf(path: string): Promise<FileStamp> {
  const st = await stat(path);
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/** Whether a file is as it was when stamped: same size and modification time (what make and Snakemake trust too). */
export async function stillMatches(path: string, recorded: FileStamp): Promise<boolean> {
  try {
    const st = await stat(path);
    return st.isFile() && st.size === recorded.size && st.mtimeMs === recorded.mtimeMs;
  } catch {
    return false;
  }
}

/** stillMatches with `statSync`, for a local file whose stat is an inode cache read (fewer trips through the thread pool). */
export function stampMatches(path: string, recorded: FileStamp): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && st.size === recorded.size && st.mtimeMs === recorded.mtimeMs;
  } catch {
    return false;
  }
}

/** Files up to this size are read whole (one trip through the thread pool), larger ones streamed. */
const READ_WHOLE = 1024 * 1024;

/**
 * Hash a file, with the size and modification time the hash was taken of. What is hashed is never written in place:
 * a job's outputs once it has ended, data items replaced by a rename (data-store.ts); a small file is read whole
 * through the descriptor its size was read from, a large one streamed and checked after.
 */
export async function hashFile(path: string): Promise<FileHash> {
  const handle = await open(path);
  let before;
  try {
    before = await handle.stat();
    if (before.size <= READ_WHOLE) {
      const sha256 = createHash('sha256')
        .update(await handle.readFile())
        .digest('hex');
      return { sha256, size: before.size, mtimeMs: before.mtimeMs };
    }
  } finally {
    await handle.close();
  }
  const sha256 = await sha256OfFile(path);
  const after = await stat(path);
  if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) throw new Error(`${path} changed while it was being hashed`);
  return { sha256, size: after.size, mtimeMs: after.mtimeMs };
}
