/**
 * Data item names (docs/wire.md §5): `<account>:/<path>`, or `/<path>` in the caller's own account.
 *
 * Names are taken literally: nothing is percent-decoded, Unicode-normalised or case-folded, so `%2e%2e` is an
 * ordinary segment. What is refused, so that a name can never address a file outside `<root>/<account>/`:
 * `.` and `..` segments, empty segments (`//`, a trailing `/`, `alice:///etc/passwd`), NUL and other control
 * characters, backslashes, ill-formed UTF-16 (lone surrogates would turn into U+FFFD on disk and alias another
 * name), names over 1024 characters, segments over 255 UTF-8 bytes, segments starting with the store's
 * temporary-file prefix, and account names not matching /^[A-Za-z][A-Za-z0-9_-]{2,127}$/.
 */

export interface DataRef {
  account: string;
  /** Normalised, starts with '/', no trailing '/'. */
  path: string;
}

export class DataPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataPathError';
  }
}

export const ACCOUNT_NAME = /^[A-Za-z][A-Za-z0-9_-]{2,127}$/;
export const MAX_NAME_LENGTH = 1024;
export const MAX_SEGMENT_BYTES = 255;
/** Names of the store's temporary files start with this; no item segment may. */
export const TEMP_PREFIX = '.gdflow-tmp-';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const show = (name: string): string => JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);

/** Throws DataPathError unless `account` is a valid account name. */
export function checkAccount(account: string, name: string = account): void {
  if (typeof account !== 'string' || !ACCOUNT_NAME.test(account)) {
    throw new DataPathError(
      `data name ${show(name)}: account ${show(String(account))} is not a valid account name (a letter, then 2-127 letters, digits, '_' or '-')`,
    );
  }
}

/**
 * Validates the path part of a name (starting with '/'); returns it unchanged.
 * `allowRoot` accepts '/' alone and `allowTrailingSlash` a trailing '/' (for directory prefixes).
 */
export function checkPath(path: string, name: string, opts: { allowRoot?: boolean; allowTrailingSlash?: boolean } = {}): string {
  const why = (reason: string): DataPathError => new DataPathError(`data name ${show(name)}: ${reason}`);
  if (typeof path !== 'string' || !path.startsWith('/')) throw why("the path must start with '/'");
  if (path.includes('\0')) throw why('NUL characters are not allowed');
  if (CONTROL.test(path)) throw why('control characters are not allowed');
  if (path.includes('\\')) throw why('backslashes are not allowed');
  if (LONE_SURROGATE.test(path)) throw why('the name is not valid Unicode');
  let body = path.slice(1);
  if (body === '') {
    if (opts.allowRoot) return path;
    throw why('the path names no item');
  }
  if (opts.allowTrailingSlash && body.endsWith('/')) body = body.slice(0, -1);
  if (body === '') throw why('empty path segments are not allowed');
  for (const segment of body.split('/')) {
    if (segment === '') throw why("empty path segments ('//' or a trailing '/') are not allowed");
    if (segment === '.' || segment === '..') throw why(`'${segment}' segments are not allowed`);
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) throw why(`a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
    if (segment.startsWith(TEMP_PREFIX)) throw why(`segments starting with '${TEMP_PREFIX}' are reserved`);
  }
  return path;
}

/** Parses `<account>:/<path>` or `/<path>` (in `defaultAccount`). Throws DataPathError naming the name and why. */
export function parseDataName(name: string, defaultAccount: string): DataRef {
  if (typeof name !== 'string' || name === '') throw new DataPathError('data name "": the name is empty');
  if (name.length > MAX_NAME_LENGTH) throw new DataPathError(`data name ${show(name)}: longer than ${MAX_NAME_LENGTH} characters`);
  let account: string;
  let path: string;
  if (name.startsWith('/')) {
    account = defaultAccount;
    path = name;
  } else {
    const colon = name.indexOf(':');
    if (colon < 0) throw new DataPathError(`data name ${show(name)}: expected "<account>:/<path>" or "/<path>"`);
    account = name.slice(0, colon);
    path = name.slice(colon + 1);
    if (!path.startsWith('/')) throw new DataPathError(`data name ${show(name)}: expected "<account>:/<path>" (the path must start with '/')`);
  }
  checkAccount(account, name);
  checkPath(path, name);
  return { account, path };
}

/** '<account>:/<path>'. */
export function formatDataName(ref: DataRef): string {
  return `${ref.account}:${ref.path}`;
}

/** Re-validates a DataRef that may have been built by hand; returns it. */
export function checkRef(ref: DataRef): DataRef {
  const name = formatDataName(ref);
  checkAccount(ref.account, name);
  if (name.length > MAX_NAME_LENGTH) throw new DataPathError(`data name ${show(name)}: longer than ${MAX_NAME_LENGTH} characters`);
  checkPath(ref.path, name);
  return ref;
}
