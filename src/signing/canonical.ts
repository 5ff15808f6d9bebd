/**
 * The canonical parts of a GeneDock request signature (docs/wire.md §1), as small pure functions so
 * that the server's verifier and the SDK's signer share one implementation and the published
 * test vectors pin each part.
 */

export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Decode %XX escapes once as UTF-8, as Python's `urllib.parse.unquote` does for the real clients:
 * malformed escapes (`%zz`) and `+` stay as they are; bytes that are not valid UTF-8 become U+FFFD.
 */
export function percentDecodeOnce(input: string): string {
  if (!input.includes('%')) return input;
  // Decode runs of escapes together so that multi-byte UTF-8 sequences come out whole.
  return input.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(3 * i + 1, 3 * i + 3), 16);
    return utf8.decode(bytes);
  });
}

/** Not fatal: bytes that are not valid UTF-8 become U+FFFD. (No Buffer: the web console signs with this file too.) */
const utf8 = new TextDecoder('utf-8');

/**
 * The canonical resource: the raw request target, decoded once; when it then holds exactly one
 * `?`, the `k=v` items of the query are sorted by code point and re-joined with `&`.
 */
export function canonicalResource(rawTarget: string): string {
  const decoded = percentDecodeOnce(rawTarget);
  const first = decoded.indexOf('?');
  if (first === -1 || decoded.indexOf('?', first + 1) !== -1) return decoded;
  const query = decoded.slice(first + 1);
  if (!query.includes('&')) return decoded;
  const path = decoded.slice(0, first);
  const items = query.split('&');
  items.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `${path}?${items.join('&')}`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(',') : value;
}

/** Look a header up by name, whatever its case in the bag. */
export function getHeader(headers: HeaderBag, name: string): string | undefined {
  const lower = name.toLowerCase();
  const direct = headers[lower] ?? headers[name];
  if (direct !== undefined) return headerValue(direct);
  for (const key in headers) {
    if (key.length === lower.length && key.toLowerCase() === lower) return headerValue(headers[key]);
  }
  return undefined;
}

interface SignedHeaders {
  md5: string;
  type: string;
  date: string;
  /** Every `x-gd-*` header as `name:value\n`, names lower-cased and trimmed, sorted by name. */
  gd: string;
}

/**
 * The signed headers in one pass, whatever the case of their names (servers see lower case,
 * clients write Content-Type). An absent header is the empty string.
 */
function signedHeaders(headers: HeaderBag): SignedHeaders {
  const result: SignedHeaders = { md5: '', type: '', date: '', gd: '' };
  let gd: Array<[string, string]> | undefined;
  for (const key in headers) {
    const value = headerValue(headers[key]);
    if (value === undefined) continue;
    // Servers see names already lower-cased and trimmed; only a client's own bag needs folding.
    const name = isLowerTrimmed(key) ? key : key.trim().toLowerCase();
    if (name === 'content-md5') result.md5 = value;
    else if (name === 'content-type') result.type = value;
    else if (name === 'date') result.date = value;
    else if (name.startsWith('x-gd-')) (gd ??= []).push([name, value.trim()]);
  }
  if (gd) {
    gd.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    result.gd = gd.map(([name, value]) => `${name}:${value}\n`).join('');
  }
  return result;
}

/** No upper-case letters and no surrounding white space (header names are ASCII tokens). */
function isLowerTrimmed(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c === 32 || c === 9) return false;
  }
  return true;
}

/** Every `x-gd-*` header as `name:value\n`, names lower-cased and trimmed, sorted by name. */
export const canonicalGdHeaders = (headers: HeaderBag): string => signedHeaders(headers).gd;

export interface SignableRequest {
  method: string;
  /** Path plus `?query`, exactly as sent on the request line. */
  target: string;
  headers: HeaderBag;
}

export function stringToSign(request: SignableRequest): string {
  const h = signedHeaders(request.headers);
  return `${request.method.toUpperCase()}\n${h.md5}\n${h.type}\n${h.date}\n${h.gd}${canonicalResource(request.target)}`;
}
