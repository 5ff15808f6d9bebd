import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { FileHash } from '../store/store.js';

/** The sha256 of a file's content, streamed (files may be many gigabytes). */
export function sha256OfFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Whether a recorded hash still describes the file: same size and modification time (what make and Snakemake trust too). */
export async function stillMatches(path: string, recorded: FileHash): Promise<boolean> {
  try {
    const st = await stat(path);
    return st.isFile() && st.size === recorded.size && st.mtimeMs === recorded.mtimeMs;
  } catch {
    return false;
  }
}

/** Files up to this size are read whole (one trip through the thread pool), larger ones streamed. */
const READ_WHOLE = 1024 * 1024;

/** Hash a file, with the size and modification time the hash was taken of (read before, checked after). */
export async function hashFile(path: string): Promise<FileHash> {
  const before = await stat(path);
  const sha256 = before.size <= READ_WHOLE ? createHash('sha256').update(await readFile(path)).digest('hex') : await sha256OfFile(path);
  const after = await stat(path);
  if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) throw new Error(`${path} changed while it was being hashed`);
  return { sha256, size: after.size, mtimeMs: after.mtimeMs };
}
