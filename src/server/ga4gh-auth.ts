import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../domain/access.js';
import { parseToken, tokenRefusal } from '../domain/tokens.js';
import type { AccessKey, AccessToken } from '../store/store.js';
import { keyCaller, verifyRequest, verifyRequestNow, type VerifyOptions } from './auth.js';
import { httpError } from './errors.js';

/**
 * Who calls a GA4GH route (docs/ga4gh.md, "Authentication"). Standard clients cannot sign GeneDock requests; these
 * routes take, besides gdflow's own signature:
 * - `Authorization: Basic base64(access_key_id:access_key_secret)`: an access key, as `gdflow admin create-key` made it;
 * - `Authorization: Bearer gdt_...`: a token of `gdflow admin create-token`, limited to one project and a lifetime.
 * Keys and tokens are read through the store's cache, so that a revocation is refused as soon as the server notices
 * the write (within 25 ms on SQLite, a few milliseconds on PostgreSQL, 250 ms when a notification is missed), as for
 * signed requests; an expired token is refused from the second it expires.
 */
export interface Ga4ghVerifyOptions extends VerifyOptions {
  lookupToken: (id: string) => Promise<AccessToken | undefined>;
  peekToken?: (id: string) => AccessToken | null | undefined;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

type Parsed = { kind: 'basic'; id: string; secret: string } | { kind: 'bearer'; id: string; secret: string } | { kind: 'signature' };

function parse(request: FastifyRequest): Parsed {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') {
    throw httpError(
      'MissingAuthorization',
      'the Authorization header is missing; send Basic (access key id and secret) or Bearer (a token of gdflow admin create-token)',
    );
  }
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw httpError('InvalidAuthorization', "Basic credentials must be base64 of 'access_key_id:access_key_secret'");
    return { kind: 'basic', id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  }
  if (scheme === 'bearer') {
    const token = parseToken(value);
    if (!token) throw httpError('InvalidAccessKeyId', 'the bearer token is not one gdflow made (gdt_<16 hex>_<64 hex>)');
    return { kind: 'bearer', ...token };
  }
  if (scheme === 'genedock') return { kind: 'signature' };
  throw httpError('InvalidAuthorization', `the Authorization scheme '${scheme.slice(0, 32)}' is not Basic, Bearer or GeneDock`);
}

function basicCaller(request: FastifyRequest, id: string, secret: string, key: AccessKey | null | undefined): Caller {
  if (!key) throw httpError('InvalidAccessKeyId', `access key '${id.slice(0, 64)}' does not exist`);
  if (key.status !== 'active') throw httpError('InvalidAccessKeyId', `access key '${key.id}' has been revoked`);
  if (!timingSafeEqual(sha256(secret), sha256(key.secret))) throw httpError('SignatureDoesNotMatch', `the secret is not the one of access key '${key.id}'`);
  return keyCaller(request, key);
}

function bearerCaller(request: FastifyRequest, secret: string, token: AccessToken | null | undefined, now: number): Caller {
  const refusal = tokenRefusal(token, secret, now / 1000);
  if (refusal !== undefined || !token) throw httpError('InvalidAccessKeyId', refusal ?? 'the token does not exist');
  return {
    accountId: token.accountId,
    accountName: token.accountName,
    userName: token.userName,
    // The audit log names the token by its id, where a key's id would be.
    accessKeyId: `token:${token.id}`,
    requestId: String(request.id),
    clientAddress: request.ip,
    ...(token.projectName !== null ? { project: token.projectName } : {}),
  };
}

/** The caller when its key or token is at hand (cached), or undefined: then ask verifyGa4gh. Throws an HttpError (401). */
export function verifyGa4ghNow(request: FastifyRequest, options: Ga4ghVerifyOptions): Caller | undefined {
  const parsed = parse(request);
  if (parsed.kind === 'signature') return verifyRequestNow(request, options);
  if (parsed.kind === 'basic') {
    const key = options.peekKey?.(parsed.id);
    return key === undefined ? undefined : basicCaller(request, parsed.id, parsed.secret, key);
  }
  const token = options.peekToken?.(parsed.id);
  return token === undefined ? undefined : bearerCaller(request, parsed.secret, token, options.now());
}

export async function verifyGa4gh(request: FastifyRequest, options: Ga4ghVerifyOptions): Promise<Caller> {
  const parsed = parse(request);
  if (parsed.kind === 'signature') return verifyRequest(request, options);
  if (parsed.kind === 'basic') return basicCaller(request, parsed.id, parsed.secret, await options.lookupKey(parsed.id));
  return bearerCaller(request, parsed.secret, await options.lookupToken(parsed.id), options.now());
}
