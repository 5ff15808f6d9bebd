import { createHash } from 'node:crypto';

/**
 * A deferred job's node id from its key: what names its working directory and the end of its job id (docs/wire.md:
 * `<task_id>_<24 hex>_<node_id>`). Keys are paths of names (`main/align[3]`, `main/qc/trim`): the separators become
 * characters that are safe in a file name and to the shell (`main.align@3`, `main.qc.trim`); a key with other
 * characters, or too long, keeps a safe part of itself and a hash of the whole, so that two keys never share a node id.
 */
const PLAIN = /^[A-Za-z0-9_\-/[\]]+$/;
const MAX = 100;

export function nodeIdOf(key: string): string {
  const safe = key
    .replace(/\//g, '.')
    .replace(/\[(\d+)\]/g, '@$1')
    .replace(/[^A-Za-z0-9_.@-]/g, '_');
  if (PLAIN.test(key) && safe.length <= MAX) return safe;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 10);
  return `${safe.slice(0, MAX - 12)}_h${hash}`;
}
