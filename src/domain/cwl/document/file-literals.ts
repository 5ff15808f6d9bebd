import { holdsExpression, pathToReference, resolveReference } from '../uri.js';
import { copyPositions } from './positions.js';

type Json = Record<string, unknown>;

/**
 * A File or Directory object written in a document or a job object, with its references made
 * absolute against `base` (the file it is written in): `location` as a URI reference, `path` as a
 * local path that becomes the `location` (and is dropped: `path` is where the engine stages a file),
 * `format` with namespace prefixes expanded; `secondaryFiles` and `listing` likewise. Expressions
 * (`location: $(inputs.x)` in an InitialWorkDirRequirement) are left alone.
 */
export function resolveFileLiteral(node: Json, base: string, namespaces: Readonly<Record<string, string>>): Json {
  const out: Json = {};
  copyPositions(node, out);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'path') continue;
    if (key === 'location' && typeof value === 'string') out.location = resolveReference(value, base);
    else if (key === 'format' && typeof value === 'string') out.format = holdsExpression(value) ? value : resolveReference(value, base, namespaces);
    else if ((key === 'secondaryFiles' || key === 'listing') && Array.isArray(value)) {
      const list = (value as unknown[]).map((item) => (isFileObject(item) ? resolveFileLiteral(item, base, namespaces) : item));
      copyPositions(value, list);
      out[key] = list;
    } else out[key] = value;
  }
  const path = node.path;
  if (typeof path === 'string' && out.location === undefined) {
    out.location = holdsExpression(path) ? path : resolveReference(pathToReference(path), base);
  }
  return out;
}

export const isFileObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && ((value as Json).class === 'File' || (value as Json).class === 'Directory');
