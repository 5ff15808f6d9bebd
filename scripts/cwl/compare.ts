import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sameNumber, showJson } from './numbers.js';

/**
 * cwltest's output matching (cwltest/compare.py), so that a runner passing here passes cwltest:
 * - `Any` matches any value, even an absent or null one (cwltest returns before it looks at the actual value);
 * - lists match item by item, in order; scalars by value, numbers exactly as Python compares them (2 matches 2.0,
 *   a large integer only the same integer: numbers.ts);
 * - objects match key by key, and a key the expected object lacks is refused unless its value is null;
 * - File and Directory objects may carry keys the expected one lacks. `location` (or `path`, when the expected names
 *   one) matches by its tail: the actual value ends with `/` + the expected one (a Directory's trailing `/` cut), and
 *   must name a file or directory that exists. A File's checksum and size are recomputed from the file on disk and
 *   must agree with what the runner declared and with what the test expects, so a runner cannot just print them.
 *   A Directory's expected `listing` entries must each match some entry of the actual `listing` (any order, extra
 *   entries allowed). Other expected keys (`basename`, `secondaryFiles`, `format`, ...) match as values.
 * Relative paths in the runner's output resolve against `cwd`, the directory the runner ran in.
 */

export interface Mismatch {
  /** Where in the output object, as `output.files[0].checksum`. */
  at: string;
  reason: string;
  expected: unknown;
  actual: unknown;
}

type Json = Record<string, unknown>;

/** Keys of an expected File or Directory that are matched by the rules above rather than as plain values. */
const FILE_RULE_KEYS = new Set(['path', 'location', 'listing', 'contents', 'checksum', 'size']);

export function compareOutputs(expected: unknown, actual: unknown, cwd: string): Mismatch | undefined {
  return compare(expected, actual, 'output', cwd);
}

function compare(expected: unknown, actual: unknown, at: string, cwd: string): Mismatch | undefined {
  if (expected === 'Any') return undefined;
  if (!isNone(expected) && isNone(actual)) return mismatch(at, 'missing', expected, actual);
  if (isObject(expected)) {
    if (!isObject(actual)) return mismatch(at, `expected an object, got ${kindOf(actual)}`, expected, actual);
    if (expected.class === 'File') return compareFile(expected, actual, at, cwd);
    if (expected.class === 'Directory') return compareDirectory(expected, actual, at, cwd);
    return compareObject(expected, actual, at, cwd);
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return mismatch(at, `expected a list, got ${kindOf(actual)}`, expected, actual);
    if (expected.length !== actual.length) return mismatch(at, `expected ${expected.length} items, got ${actual.length}`, expected, actual);
    for (let i = 0; i < expected.length; i += 1) {
      const found = compare(expected[i], actual[i], `${at}[${i}]`, cwd);
      if (found) return found;
    }
    return undefined;
  }
  if (isNone(expected) && isNone(actual)) return undefined;
  return sameScalar(expected, actual) ? undefined : mismatch(at, 'differs', expected, actual);
}

function compareObject(expected: Json, actual: Json, at: string, cwd: string): Mismatch | undefined {
  for (const key of Object.keys(expected)) {
    const found = compare(expected[key], field(actual, key), member(at, key), cwd);
    if (found) return found;
  }
  const extra = Object.keys(actual).find((key) => !Object.hasOwn(expected, key) && !isNone(actual[key]));
  return extra === undefined ? undefined : mismatch(member(at, extra), 'unexpected key', undefined, actual[extra]);
}

function compareFile(expected: Json, actual: Json, at: string, cwd: string): Mismatch | undefined {
  const found = compareLocation(expected, actual, at, cwd) ?? compareContents(expected, actual, at, cwd);
  if (found) return found;
  if (actual.class === 'File') {
    const onDisk = compareChecksumAndSize(expected, actual, at, cwd);
    if (onDisk) return onDisk;
  }
  for (const key of Object.keys(expected)) {
    if (FILE_RULE_KEYS.has(key)) continue;
    const other = compare(expected[key], field(actual, key), member(at, key), cwd);
    if (other) return other;
  }
  return undefined;
}

function compareDirectory(expected: Json, actual: Json, at: string, cwd: string): Mismatch | undefined {
  if (actual.class !== 'Directory') return mismatch(at, 'expected an object of class Directory', expected, actual);
  if (!Array.isArray(actual.listing)) return mismatch(member(at, 'listing'), "an output Directory must have its 'listing'", expected.listing, actual.listing);
  const actualListing = actual.listing as unknown[];
  // cwltest cannot compare an expected Directory without a listing (a KeyError fails the test); the suite has none.
  if (!Array.isArray(expected.listing)) {
    return mismatch(member(at, 'listing'), 'the expected Directory has no listing (cwltest fails such a test)', expected.listing, actual.listing);
  }
  for (const [i, entry] of expected.listing.entries()) {
    if (!actualListing.some((candidate) => compare(entry, candidate, at, cwd) === undefined)) {
      const name = isObject(entry) && typeof entry.basename === 'string' ? ` (${entry.basename})` : '';
      return mismatch(`${member(at, 'listing')}[${i}]`, `no entry of the actual listing matches${name}`, entry, actualListing);
    }
  }
  return compareFile(expected, actual, at, cwd);
}

/** cwltest's tail rule for `location`/`path`, and the existence of what the actual one names. */
function compareLocation(expected: Json, actual: Json, at: string, cwd: string): Mismatch | undefined {
  const expectedKey = 'path' in expected ? 'path' : 'location' in expected ? 'location' : undefined;
  if (expectedKey === undefined) return undefined;
  const actualKey = typeof actual.path === 'string' ? 'path' : 'location';
  const raw = actual[actualKey];
  if (typeof raw !== 'string') return mismatch(member(at, actualKey), 'the output object has no path or location', expected[expectedKey], raw);
  const directory = actual.class === 'Directory';
  const reference = directory ? raw.replace(/\/+$/, '') : raw;
  const path = localPath(reference, cwd);
  if (path === undefined || !exists(path, directory)) {
    return mismatch(member(at, actualKey), `${reference} is not ${directory ? 'a directory' : 'a file'} on this machine`, expected[expectedKey], reference);
  }
  const tail = expected[expectedKey];
  if (tail === 'Any') return undefined;
  if (typeof tail === 'string' && (reference.endsWith(`/${tail}`) || (!reference.includes('/') && reference === tail))) return undefined;
  return mismatch(member(at, actualKey), `does not end with /${String(tail)}`, tail, reference);
}

function compareContents(expected: Json, actual: Json, at: string, cwd: string): Mismatch | undefined {
  if (!('contents' in expected)) return undefined;
  // cwltest reads the actual `path`, which it has set from `location` only when the expected object names a path.
  const reference = typeof actual.path === 'string' ? actual.path : 'path' in expected ? actual.location : undefined;
  if (typeof reference !== 'string') return mismatch(member(at, 'path'), 'no path to read the contents from', expected.contents, undefined);
  const path = localPath(reference, cwd);
  const contents = path === undefined ? undefined : readText(path);
  return contents === expected.contents ? undefined : mismatch(member(at, 'contents'), 'the file on disk holds other contents', expected.contents, contents);
}

function compareChecksumAndSize(expected: Json, actual: Json, at: string, cwd: string): Mismatch | undefined {
  // cwltest reads the size from `path` or, lacking it, `location`, but evaluates `location` first: a File without a
  // location fails there even with a path. An output File must have one anyway (the CWL standard).
  if (typeof actual.location !== 'string') return mismatch(member(at, 'location'), 'an output File must have a location', expected.location, actual.location);
  const reference = typeof actual.path === 'string' ? actual.path : actual.location;
  const path = localPath(reference, cwd);
  const disk = path === undefined ? undefined : fileFacts(path);
  if (disk === undefined) return mismatch(at, `cannot read ${reference} to check its checksum and size`, expected, actual);
  if ('checksum' in actual && actual.checksum !== disk.checksum) {
    const reason = `the runner declared ${String(actual.checksum)} but the file on disk has ${disk.checksum}`;
    return mismatch(member(at, 'checksum'), reason, expected.checksum, actual.checksum);
  }
  if ('checksum' in expected && expected.checksum !== disk.checksum) {
    return mismatch(member(at, 'checksum'), `the file on disk has ${disk.checksum}`, expected.checksum, actual.checksum);
  }
  if ('size' in actual && actual.size !== disk.size) {
    return mismatch(member(at, 'size'), `the runner declared ${String(actual.size)} but the file on disk has ${disk.size} bytes`, expected.size, actual.size);
  }
  if ('size' in expected && expected.size !== disk.size) {
    return mismatch(member(at, 'size'), `the file on disk has ${disk.size} bytes`, expected.size, actual.size);
  }
  return undefined;
}

/** A path or file: URI from the output object as a local path; undefined for other schemes (nothing to read). */
export function localPath(reference: string, cwd: string): string | undefined {
  if (reference.startsWith('file:')) {
    try {
      return fileURLToPath(reference);
    } catch {
      return undefined;
    }
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(reference)) return undefined;
  return resolve(cwd, reference);
}

function exists(path: string, directory: boolean): boolean {
  try {
    const stat = statSync(path);
    return directory ? stat.isDirectory() : stat.isFile();
  } catch {
    return false;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The file's sha1 (CWL's `sha1$hex` form) and size, read in chunks so a large output is not held in memory. */
function fileFacts(path: string): { checksum: string; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const hash = createHash('sha1');
    const buffer = Buffer.alloc(1 << 20);
    let size = 0;
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      hash.update(buffer.subarray(0, read));
      size += read;
    }
    return { checksum: `sha1$${hash.digest('hex')}`, size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Python's `==` on JSON scalars, with one strictness of ours: true and 1 differ (Python's bool is an int). */
function sameScalar(expected: unknown, actual: unknown): boolean {
  const numeric = (value: unknown): value is number | bigint => typeof value === 'number' || typeof value === 'bigint';
  return numeric(expected) && numeric(actual) ? sameNumber(expected, actual) : expected === actual;
}

/** A key of the output object itself: `constructor` or `toString` in an expected object is not Object's. */
function field(object: Json, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function isNone(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `the ${typeof value} ${showJson(value)}`;
}

function member(at: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
}

function mismatch(at: string, reason: string, expected: unknown, actual: unknown): Mismatch {
  return { at, reason, expected, actual };
}
