/**
 * The `dependencies` zip of a WDL workflow: the files its imports name, by their paths inside the zip. Unpacked in
 * memory, within limits read from the zip's directory before anything is inflated (a zip's sizes may lie: an entry is
 * inflated into a buffer of its declared size and never beyond it).
 */
import { unzipSync } from 'fflate';
import { invalid } from '../../errors.js';

const MAX_ENTRIES = 10_000;
const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;

/** path inside the zip ('lib/tasks.wdl', '/' separators, no leading '/') -> text; files that are not UTF-8 are left out. */
export function unpackDependencies(zip: Buffer, filename: string): Record<string, string> {
  const shown = filename.slice(0, 100);
  let entries = 0;
  let unpacked = 0;
  let refusal: string | undefined;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(new Uint8Array(zip.buffer, zip.byteOffset, zip.length), {
      filter: (file) => {
        if (file.name.endsWith('/')) return false;
        entries++;
        unpacked += file.originalSize;
        if (entries > MAX_ENTRIES) refusal ??= `it holds more than ${MAX_ENTRIES} files`;
        if (unpacked > MAX_UNPACKED_BYTES) refusal ??= `its files unpack to more than ${MAX_UNPACKED_BYTES} bytes`;
        return refusal === undefined;
      },
    });
  } catch (error) {
    throw invalid(`dependencies '${shown}' is not a zip file (${error instanceof Error ? error.message : String(error)})`);
  }
  if (refusal !== undefined) throw invalid(`dependencies '${shown}' is too large: ${refusal}`);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const [name, data] of Object.entries(files)) {
    const path = name.replace(/\\/g, '/').replace(/^\.\//, '');
    if (path.startsWith('/') || path.split('/').includes('..')) throw invalid(`dependencies '${shown}' holds '${name.slice(0, 200)}', a path outside the zip`);
    try {
      out[path] = decoder.decode(data);
    } catch {
      // Not text: no import can name it as a document.
    }
  }
  return out;
}
