import { DATA_STORE_SCHEME } from '../../domain/cwl/index.js';

/**
 * `gdflow:` locations, the way CWL objects exchanged with the server name items of the account's data store
 * (docs/cwl.md, "Running CWL"): the scheme, then the item's data path as it is, without its leading `/`
 * (`/cwl/inputs/3f2a/my reads.fq` is `gdflow:cwl/inputs/3f2a/my reads.fq`: nothing is percent-encoded); a
 * Directory's ends in `/`.
 */

/** The location of the data item (or folder, with `directory`) at `path` (`/cwl/inputs/...`). */
export function dataLocation(path: string, directory = false): string {
  return `${DATA_STORE_SCHEME}${path.replace(/^\/+/, '').replace(/\/+$/, '')}${directory ? '/' : ''}`;
}

export const isDataLocation = (location: string): boolean => location.startsWith(DATA_STORE_SCHEME);

/** The data path (`/cwl/runs/<task>/out.txt`) a `gdflow:` location names. */
export function dataPath(location: string): string {
  return `/${location.slice(DATA_STORE_SCHEME.length).replace(/^\/+/, '').replace(/\/+$/, '')}`;
}
