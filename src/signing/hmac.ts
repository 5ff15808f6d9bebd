import { createHash, timingSafeEqual } from 'node:crypto';
import { stringToSign, type SignableRequest } from './canonical.js';
import { hmacSha1Base64, hmacSha1Key, type HmacSha1Key } from './hmac-sha1.js';

export const AUTH_SCHEME = 'GeneDock';

// A server checks many requests signed with the same few secrets: prepare each key once.
const keys = new Map<string, HmacSha1Key>();

function hmacKey(secret: string): HmacSha1Key {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 1000) keys.clear();
    key = hmacSha1Key(secret);
    keys.set(secret, key);
  }
  return key;
}

/** The base64 HMAC-SHA1 of `text` under `secret` (docs/wire.md §1). */
export function signString(secret: string, text: string): string {
  return hmacSha1Base64(hmacKey(secret), text);
}

export function signRequest(secret: string, request: SignableRequest): string {
  return signString(secret, stringToSign(request));
}

export function authorizationHeader(accessKeyId: string, signature: string): string {
  return `${AUTH_SCHEME} ${accessKeyId}:${signature}`;
}

export interface ParsedAuthorization {
  accessKeyId: string;
  signature: string;
}

/** Parse `GeneDock <id>:<signature>`; undefined when the header does not have that shape. */
export function parseAuthorization(header: string): ParsedAuthorization | undefined {
  const match = /^GeneDock ([^:\s]+):(\S+)$/.exec(header.trim());
  if (!match) return undefined;
  return { accessKeyId: match[1]!, signature: match[2]! };
}

/** Constant-time comparison of two base64 signatures. */
export function signaturesEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  if (a.length !== b.length) {
    // Compare against itself so the time taken does not depend on where the strings differ.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

export const contentMd5 = (body: Buffer | string): string => createHash('md5').update(body).digest('base64');
