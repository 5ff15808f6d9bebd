import { DataPathError, parseDataName, type DataRef } from '../data/names.js';

/**
 * Data names as users write them (docs/wire.md §5): `<account>:/<path>`, or `/<path>` in the caller's
 * own account. The SDK checks them with the very rule the server applies, so that a bad name is
 * refused before any request (and `gdflow batch` can refuse a bad row before submitting anything).
 */
export { DataPathError, type DataRef };

/** Parse a data item name; throws DataPathError naming the problem. */
export function parseDataItemName(name: string, ownAccount: string): DataRef {
  return parseDataName(name, ownAccount);
}

/**
 * Parse a listing prefix: like a name, but `/` alone and a trailing `/` are allowed
 * (`/reads/`, `public:/demo/`, `alice:/`).
 */
export function parseDataPrefix(prefix: string, ownAccount: string): DataRef {
  const colon = prefix.indexOf(':');
  const slash = prefix.indexOf('/');
  const hasAccount = colon >= 0 && (slash < 0 || colon < slash);
  const account = hasAccount ? prefix.slice(0, colon) : ownAccount;
  const path = hasAccount ? prefix.slice(colon + 1) || '/' : prefix || '/';
  if (!path.startsWith('/')) throw new DataPathError(`data prefix ${JSON.stringify(prefix)}: the path must start with '/'`);
  if (path !== '/') {
    // Validate through the name rule with the trailing slash removed.
    parseDataName(`${account}:${path.replace(/\/$/, '')}`, ownAccount);
  } else {
    parseDataName(`${account}:/x`, ownAccount);
  }
  return { account, path };
}

/** `/accounts/<account>/data/<path>` with every segment percent-encoded. */
export function dataRoute(ref: DataRef): string {
  return `/accounts/${encodeURIComponent(ref.account)}/data${ref.path.split('/').map(encodeURIComponent).join('/')}`;
}

export const formatDataItemName = (ref: DataRef): string => `${ref.account}:${ref.path}`;
