import type { CwlValue, CwlVersion } from './model.js';
import { isFile } from './model.js';

/**
 * `loadContents` (CWL v1.2 §LoadContents): a File's `contents` holds its first bytes as text, for expressions to
 * read. Reading files is I/O, so the domain gets a reader from the engine (which knows where a location's bytes
 * are: a host path under the data root).
 */
export interface FileContentReader {
  /**
   * The first `bytes` bytes of the file at `location` as UTF-8 text, and whether they are the whole file. Rejects
   * with an Error naming the file when it cannot be read.
   */
  head(location: string, bytes: number): Promise<{ text: string; whole: boolean }>;
}

/** How much `loadContents` reads: 64 KiB. */
export const LOAD_CONTENTS_LIMIT = 64 * 1024;

/** A file larger than `loadContents` may read under CWL v1.2 (earlier versions truncate it silently). */
export class ContentsTooLargeError extends Error {
  constructor(readonly location: string) {
    super(`loadContents reads at most 64 KiB, and ${location} is larger (CWL v1.2 makes that an error)`);
    this.name = 'ContentsTooLargeError';
  }
}

/**
 * `value` with `contents` filled in on its File (or on each File of a list): a File that already has contents (a
 * literal, or loaded before) keeps them; other values are returned unchanged. v1.0 and v1.1 documents get the
 * first 64 KiB of a larger file, v1.2 documents a ContentsTooLargeError.
 */
export async function loadContents(value: CwlValue, reader: FileContentReader, cwlVersion: CwlVersion): Promise<CwlValue> {
  if (Array.isArray(value)) return Promise.all(value.map(async (item: CwlValue) => (isFile(item) ? await loadContents(item, reader, cwlVersion) : item)));
  if (!isFile(value) || value.contents !== undefined || value.location === undefined) return value;
  const { text, whole } = await reader.head(value.location, LOAD_CONTENTS_LIMIT);
  if (!whole && cwlVersion === 'v1.2') throw new ContentsTooLargeError(value.location);
  return { ...value, contents: text };
}
