import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { stringToSign, type SignableRequest } from './canonical.js';

export const AUTH_SCHEME = 'GeneDock';

// A key object per secret spares OpenSSL re-importing the key for every request a server checks.
const keys = new Map<string, KeyObject>();

function hmacKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 1000) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

export function signString(secret: string, text: string): string {
  return createHmac('sha1', hmacKey(secret)).update(text, 'utf8').digest('base64');
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
