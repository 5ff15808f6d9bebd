/**
 * HMAC-SHA1 (RFC 2104 over FIPS 180-4 SHA-1) in plain JavaScript, with each key's inner and outer
 * pad states computed once.
 *
 * Why not node:crypto's createHmac: every call makes a native Hmac object (an OpenSSL context
 * behind a V8 wrapper with a weak handle, freed later by the garbage collector). For the server,
 * which checks one signature per request, that costs several microseconds more than the hash
 * itself. In alternating GetTool load runs (BENCHMARKS.md, bench:api) this function took about
 * 4 us of server CPU per request off createHmac with a cached KeyObject, and about 2 us off two
 * one-shot crypto.hash() calls; WebAssembly (hash-wasm) and @noble/hashes were no faster than
 * createHmac even in a loop. The tests check it against createHmac on hundreds of keys and messages.
 *
 * The arithmetic has no branches or table look-ups that depend on the key or the message, so its
 * time depends only on the message length, which is public.
 *
 * It uses nothing of Node's (no Buffer, no node:crypto): the web console (console/) signs its requests in the
 * browser with this same file and canonical.ts.
 */

/** The chaining state after the key's pad block: where every message for that key starts. */
export interface HmacSha1Key {
  readonly inner: Int32Array;
  readonly outer: Int32Array;
}

const IV = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0];
const BLOCK = 64;
const schedule = new Int32Array(80);

/** SHA-1's compression function: fold the 64-byte block at `offset` into `state`. */
function compress(state: Int32Array, data: Uint8Array, offset: number): void {
  const w = schedule;
  for (let i = 0; i < 16; i++) {
    const j = offset + 4 * i;
    w[i] = (data[j]! << 24) | (data[j + 1]! << 16) | (data[j + 2]! << 8) | data[j + 3]!;
  }
  for (let i = 16; i < 80; i++) {
    const x = w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!;
    w[i] = (x << 1) | (x >>> 31);
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  // Four rounds of 20 steps, each with its own function and constant (0x8f1bbcdc and 0xca62c1d6
  // written as their signed 32-bit values).
  for (let i = 0; i < 20; i++) {
    const t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 20; i < 40; i++) {
    const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 40; i < 60; i++) {
    const t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e - 0x70e44324 + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 60; i < 80; i++) {
    const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e - 0x359d3e2a + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
}

function padState(key: Uint8Array, pad: number): Int32Array {
  const block = new Uint8Array(BLOCK);
  for (let i = 0; i < BLOCK; i++) block[i] = (key[i] ?? 0) ^ pad;
  const state = Int32Array.from(IV);
  compress(state, block, 0);
  return state;
}

const encoder = new TextEncoder();

/**
 * Write the UTF-8 bytes of `text` into `out` (which has room for them: 3 bytes per UTF-16 unit) and return their
 * count. ASCII, which a string to sign nearly always is, is copied by this loop; the rest by TextEncoder, which
 * turns a lone surrogate into U+FFFD as Buffer does.
 */
function utf8Into(text: string, out: Uint8Array): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return i + encoder.encodeInto(text.slice(i), out.subarray(i)).written;
    out[i] = c;
  }
  return n;
}

/** Write a 32-bit word big-endian at `offset`. */
function putWord(out: Uint8Array, offset: number, word: number): void {
  out[offset] = word >>> 24;
  out[offset + 1] = (word >>> 16) & 0xff;
  out[offset + 2] = (word >>> 8) & 0xff;
  out[offset + 3] = word & 0xff;
}

/** SHA-1 of a whole message (for keys longer than a block). */
function sha1(bytes: Uint8Array): Uint8Array {
  const data = new Uint8Array(Math.ceil((bytes.length + 9) / BLOCK) * BLOCK);
  data.set(bytes);
  data[bytes.length] = 0x80;
  const bits = bytes.length * 8;
  putWord(data, data.length - 8, Math.floor(bits / 2 ** 32));
  putWord(data, data.length - 4, bits >>> 0);
  const h = Int32Array.from(IV);
  for (let offset = 0; offset < data.length; offset += BLOCK) compress(h, data, offset);
  const digest = new Uint8Array(20);
  for (let i = 0; i < 5; i++) putWord(digest, 4 * i, h[i]!);
  return digest;
}

/** Prepare a key (its UTF-8 bytes when a string). Keys longer than a block are hashed first, as RFC 2104 says. */
export function hmacSha1Key(secret: string | Uint8Array): HmacSha1Key {
  let key = typeof secret === 'string' ? encoder.encode(secret) : secret;
  if (key.length > BLOCK) key = sha1(key);
  return { inner: padState(key, 0x36), outer: padState(key, 0x5c) };
}

// Scratch space, reused by every call (the function is synchronous, so calls never overlap).
let message = new Uint8Array(4096);
const state = new Int32Array(5);
const tail = new Uint8Array(BLOCK);

/** Append SHA-1 padding for a message of `length` bytes that follows one pad block; returns the padded end. */
function pad(data: Uint8Array, length: number): number {
  const end = Math.ceil((length + 9) / BLOCK) * BLOCK;
  data[length] = 0x80;
  data.fill(0, length + 1, end - 8);
  const bits = (BLOCK + length) * 8;
  putWord(data, end - 8, Math.floor(bits / 2 ** 32));
  putWord(data, end - 4, bits >>> 0);
  return end;
}

/** The base64 alphabet's character codes. */
const BASE64 = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', (c) => c.charCodeAt(0));
const digits = new Array<number>(28);

/** Standard base64 of the 20 bytes of a digest (with its one `=` of padding). */
function base64Digest(bytes: Uint8Array): string {
  for (let i = 0, o = 0; i < 21; i += 3, o += 4) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | (i + 2 < 20 ? bytes[i + 2]! : 0);
    digits[o] = BASE64[n >>> 18]!;
    digits[o + 1] = BASE64[(n >>> 12) & 63]!;
    digits[o + 2] = BASE64[(n >>> 6) & 63]!;
    digits[o + 3] = BASE64[n & 63]!;
  }
  digits[27] = 0x3d; // '=': 20 bytes leave one missing
  return String.fromCharCode.apply(null, digits);
}

/** HMAC-SHA1 of the UTF-8 bytes of `text`, in base64. */
export function hmacSha1Base64(key: HmacSha1Key, text: string): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes; keep room for the padding too.
  const room = text.length * 3 + 2 * BLOCK;
  if (message.length < room) message = new Uint8Array(room);
  const length = utf8Into(text, message);
  const end = pad(message, length);
  state.set(key.inner);
  for (let offset = 0; offset < end; offset += BLOCK) compress(state, message, offset);
  for (let i = 0; i < 5; i++) putWord(tail, 4 * i, state[i]!);
  pad(tail, 20);
  state.set(key.outer);
  compress(state, tail, 0);
  for (let i = 0; i < 5; i++) putWord(tail, 4 * i, state[i]!);
  return base64Digest(tail);
}
