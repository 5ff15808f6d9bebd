/**
 * The canonical parts of a GeneDock request signature (WIRE.md §1), as small pure functions so
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
  return input.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/**
 * The canonical resource: the raw request target, decoded once; when it then holds exactly one
 * `?`, the `k=v` items of the query are sorted by code point and re-joined with `&`.
 */
export function canonicalResource(rawTarget: string): string {
  const decoded = percentDecodeOnce(rawTarget);
  const first = decoded.indexOf('?');
  if (first === -1 || decoded.indexOf('?', first + 1) !== -1) return decoded;
  const path = decoded.slice(0, first);
  const items = decoded.slice(first + 1).split('&');
  items.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `${path}?${items.join('&')}`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(',') : value;
}

/** Look a header up by name, whatever its case in the bag. */
export function getHeader(headers: HeaderBag, name: string): string | undefined {
  const direct = headers[name] ?? headers[name.toLowerCase()];
  if (direct !== undefined) return headerValue(direct);
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lower) return headerValue(value);
  }
  return undefined;
}

/** Every `x-gd-*` header as `name:value\n`, names lower-cased and trimmed, sorted by name. */
export function canonicalGdHeaders(headers: HeaderBag): string {
  const lines: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(headers)) {
    const name = key.trim().toLowerCase();
    const text = headerValue(value);
    if (name.startsWith('x-gd-') && text !== undefined) lines.push([name, text.trim()]);
  }
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return lines.map(([name, value]) => `${name}:${value}\n`).join('');
}

export interface SignableRequest {
  method: string;
  /** Path plus `?query`, exactly as sent on the request line. */
  target: string;
  headers: HeaderBag;
}

export function stringToSign(request: SignableRequest): string {
  const h = request.headers;
  return [
    request.method.toUpperCase(),
    getHeader(h, 'Content-MD5') ?? '',
    getHeader(h, 'Content-Type') ?? '',
    getHeader(h, 'Date') ?? '',
    canonicalGdHeaders(h) + canonicalResource(request.target),
  ].join('\n');
}
