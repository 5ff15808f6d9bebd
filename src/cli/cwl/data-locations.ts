import { DATA_STORE_SCHEME } from '../../domain/cwl/index.js';
import { pathToReference } from '../../domain/cwl/uri.js';

/**
 * `gdflow:` locations, the way CWL objects exchanged with the server name items of the account's data store
 * (docs/cwl.md, "Running CWL"): the scheme, then the item's path without its leading `/`, percent-encoded segment
 * by segment as a `file:` URI encodes a path (`/cwl/inputs/3f2a/my reads.fq` is
 * `gdflow:cwl/inputs/3f2a/my%20reads.fq`); a Directory's ends in `/`.
 */

/** The location of the data item (or folder, with `directory`) at `path` (`/cwl/inputs/...`). */
export function dataLocation(path: string, directory = false): string {
  const reference = pathToReference(path.replace(/^\/+/, '').replace(/\/+$/, ''));
  return `${DATA_STORE_SCHEME}${reference}${directory ? '/' : ''}`;
}

export const isDataLocation = (location: string): boolean => location.startsWith(DATA_STORE_SCHEME);

/** The data path (`/cwl/runs/<task>/out.txt`) a `gdflow:` location names; a segment that is not valid percent-encoding is taken as written. */
export function dataPath(location: string): string {
  const rest = location.slice(DATA_STORE_SCHEME.length).replace(/^\/+/, '').replace(/\/+$/, '');
  return `/${rest.split('/').map(decodeSegment).join('/')}`;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
