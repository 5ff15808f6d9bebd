import { parse as parseLossless } from 'lossless-json';
import { exactNumber, stringifyExactJson } from '../../src/contract/exact-json.js';

export { exactNumber };

/**
 * Numbers as cwltest sees them. Python reads an integer of any size exactly (the suite expects
 * `4200000000000000000000000000000000000000000` in `record_with_default`) and compares an integer with a float by
 * their exact values, so a runner that prints `4.2e+42` there fails under cwltest. JSON.parse would read both as
 * the same double and pass it. Here an integer beyond 2^53 is kept as a bigint, in the expected output (the suite's
 * YAML) and in the runner's output alike, and compared exactly.
 */

/** Python's `==` on two numbers: a float equals an integer only when its value is exactly that integer. */
export function sameNumber(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === typeof b) return a === b;
  const [float, integer] = (typeof a === 'number' ? [a, b] : [b, a]) as [number, bigint];
  return Number.isInteger(float) && BigInt(float) === integer;
}

/**
 * The runner's stdout as JSON, its large integers exact. Throws SyntaxError for what is not JSON, and for an object
 * with a key twice with different values (stricter than gdflow's own parseExactJson, which takes the last as
 * JSON.parse does: an output object with such a key is not one).
 */
export function parseOutputJson(text: string): unknown {
  return parseLossless(text, null, exactNumber);
}

/** JSON text of a value that may hold bigints (written as their digits). */
export function showJson(value: unknown): string {
  return value === undefined ? '(absent)' : stringifyExactJson(value);
}
