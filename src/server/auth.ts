import type { FastifyRequest } from 'fastify';
import type { Caller } from '../domain/access.js';
import { canonicalResource, parseAuthorization, signRequest, signaturesEqual, stringToSign, type ParsedAuthorization } from '../signing/index.js';
import type { AccessKey } from '../store/store.js';
import { httpError } from './errors.js';

/**
 * Verify a GeneDock-signed request (docs/wire.md §1) over the raw request target. Throws an HttpError
 * (401) naming what is wrong; returns the caller on success. The body is not signed; its
 * Content-MD5, when present, is checked by the body parser.
 */
export interface VerifyOptions {
  lookupKey: (id: string) => Promise<AccessKey | undefined>;
  /**
   * The key when it is at hand without waiting (a warm cache): then a request is verified without
   * a trip through the event loop. `null` means known not to exist; undefined means not known.
   */
  peekKey?: (id: string) => AccessKey | null | undefined;
  clockSkewSeconds: number;
  now: () => number;
}

// Clients send the same Date on every request within a second: remember the last one parsed.
let lastDate = '';
let lastDateMs = Number.NaN;
function parseDate(text: string): number {
  if (text !== lastDate) {
    lastDate = text;
    lastDateMs = Date.parse(text);
  }
  return lastDateMs;
}

/** The header checks that need no key: the Authorization shape and the Date window. */
function checkHeaders(request: FastifyRequest, options: VerifyOptions): ParsedAuthorization {
  const headers = request.headers;
  const authorization = headers.authorization;
  if (authorization === undefined || authorization.trim() === '') throw httpError('MissingAuthorization', 'the Authorization header is missing');
  const parsed = parseAuthorization(authorization);
  if (!parsed) throw httpError('InvalidAuthorization', "it must be 'GeneDock <access_key_id>:<signature>'");

  // Browsers cannot set Date and send x-gd-date instead; then freshness is judged on it.
  // (Node gives header names in lower case, so they are looked up directly.)
  const gdDate = headers['x-gd-date'];
  const dateHeader = (Array.isArray(gdDate) ? gdDate.join(',') : gdDate) ?? headers.date;
  if (dateHeader === undefined) throw httpError('InvalidAuthorization', 'the request has neither a Date nor an x-gd-date header');
  const sent = parseDate(dateHeader);
  if (Number.isNaN(sent))
    throw httpError('InvalidAuthorization', `the date '${dateHeader.slice(0, 64)}' is not an HTTP date such as 'Wed, 19 Dec 2018 09:39:55 GMT'`);
  const skew = Math.round((sent - options.now()) / 1000);
  if (Math.abs(skew) > options.clockSkewSeconds) {
    throw httpError(
      'RequestTimeTooSkewed',
      `the request date '${dateHeader}' is ${Math.abs(skew)} seconds ${skew < 0 ? 'behind' : 'ahead of'} the server clock; at most ${options.clockSkewSeconds} are allowed`,
    );
  }
  return parsed;
}

/** The key's state and the signature itself. */
function checkSignature(request: FastifyRequest, parsed: ParsedAuthorization, key: AccessKey | null | undefined): Caller {
  if (!key) throw httpError('InvalidAccessKeyId', `access key '${parsed.accessKeyId.slice(0, 64)}' does not exist`);
  if (key.status !== 'active') throw httpError('InvalidAccessKeyId', `access key '${key.id}' has been revoked`);
  const headers = request.headers;
  const raw = request.raw.url ?? '/';
  const method = request.raw.method ?? 'GET';
  if (!signaturesEqual(signRequest(key.secret, { method, target: raw, headers }), parsed.signature)) {
    // A client configured with a trailing `/` on its endpoint requests `//accounts/...`; accept
    // a signature over the collapsed path as well.
    const collapsed = raw.startsWith('//') ? raw.replace(/^\/+/, '/') : undefined;
    if (!collapsed || !signaturesEqual(signRequest(key.secret, { method, target: collapsed, headers }), parsed.signature)) {
      const expected = stringToSign({ method, target: raw, headers });
      throw httpError(
        'SignatureDoesNotMatch',
        `the signature is not the HMAC-SHA1 of the string to sign ${JSON.stringify(expected)} (canonical resource ${JSON.stringify(canonicalResource(raw))})`,
      );
    }
  }
  return keyCaller(request, key);
}

/** The caller an access key makes of a request (signed, or with Basic credentials: ga4gh-auth.ts). */
export function keyCaller(request: FastifyRequest, key: AccessKey): Caller {
  // request.ip is the socket's peer, or behind a trusted proxy (--trust-proxy) the client it forwarded for.
  return {
    accountId: key.accountId,
    accountName: key.accountName,
    userName: key.userName,
    accessKeyId: key.id,
    requestId: String(request.id),
    clientAddress: request.ip,
  };
}

/**
 * Verify without waiting when the key is at hand: the caller, or undefined when the key must be
 * looked up first (then use verifyRequest). Throws like verifyRequest.
 */
export function verifyRequestNow(request: FastifyRequest, options: VerifyOptions): Caller | undefined {
  const parsed = checkHeaders(request, options);
  const key = options.peekKey?.(parsed.accessKeyId);
  return key === undefined ? undefined : checkSignature(request, parsed, key);
}

export async function verifyRequest(request: FastifyRequest, options: VerifyOptions): Promise<Caller> {
  const parsed = checkHeaders(request, options);
  return checkSignature(request, parsed, await options.lookupKey(parsed.accessKeyId));
}
