import { createHash } from 'node:crypto';

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

/** Prepare a key (its UTF-8 bytes when a string). Keys longer than a block are hashed first, as RFC 2104 says. */
export function hmacSha1Key(secret: string | Uint8Array): HmacSha1Key {
  let key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  if (key.length > BLOCK) key = createHash('sha1').update(key).digest();
  return { inner: padState(key, 0x36), outer: padState(key, 0x5c) };
}

// Scratch space, reused by every call (the function is synchronous, so calls never overlap).
let message = Buffer.alloc(4096);
const state = new Int32Array(5);
const tail = Buffer.alloc(BLOCK);

/** Append SHA-1 padding for a message of `length` bytes that follows one pad block; returns the padded end. */
function pad(data: Buffer, length: number): number {
  const end = Math.ceil((length + 9) / BLOCK) * BLOCK;
  data[length] = 0x80;
  data.fill(0, length + 1, end - 8);
  const bits = (BLOCK + length) * 8;
  data.writeUInt32BE(Math.floor(bits / 2 ** 32), end - 8);
  data.writeUInt32BE(bits >>> 0, end - 4);
  return end;
}

/** HMAC-SHA1 of the UTF-8 bytes of `text`, in base64. */
export function hmacSha1Base64(key: HmacSha1Key, text: string): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes; keep room for the padding too.
  const room = text.length * 3 + 2 * BLOCK;
  if (message.length < room) message = Buffer.alloc(room);
  const length = message.write(text, 0, 'utf8');
  const end = pad(message, length);
  state.set(key.inner);
  for (let offset = 0; offset < end; offset += BLOCK) compress(state, message, offset);
  for (let i = 0; i < 5; i++) tail.writeInt32BE(state[i]!, 4 * i);
  pad(tail, 20);
  state.set(key.outer);
  compress(state, tail, 0);
  for (let i = 0; i < 5; i++) tail.writeInt32BE(state[i]!, 4 * i);
  return tail.toString('base64', 0, 20);
}
