import { parse as parseLossless } from 'lossless-json';

/**
 * Numbers as cwltest sees them. Python reads an integer of any size exactly (the suite expects
 * `4200000000000000000000000000000000000000000` in `record_with_default`) and compares an integer with a float by
 * their exact values, so a runner that prints `4.2e+42` there fails under cwltest. JSON.parse would read both as
 * the same double and pass it. Here an integer beyond 2^53 is kept as a bigint, in the expected output (the suite's
 * YAML) and in the runner's output alike, and compared exactly.
 */

const INTEGER = /^[-+]?\d+$/;

/** A number's text as a number, or as a bigint when it is an integer a double cannot hold exactly. */
export function exactNumber(text: string): number | bigint {
  const value = Number(text);
  return INTEGER.test(text) && !Number.isSafeInteger(value) ? BigInt(text) : value;
}

/** Python's `==` on two numbers: a float equals an integer only when its value is exactly that integer. */
export function sameNumber(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === typeof b) return a === b;
  const [float, integer] = (typeof a === 'number' ? [a, b] : [b, a]) as [number, bigint];
  return Number.isInteger(float) && BigInt(float) === integer;
}

/** The runner's stdout as JSON, its large integers exact. Throws SyntaxError for what is not JSON. */
export function parseOutputJson(text: string): unknown {
  return parseLossless(text, null, exactNumber);
}

/** JSON text of a value that may hold bigints (written as their digits). */
export function showJson(value: unknown): string {
  const marked: string | undefined = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `\u0000${item}` : item));
  if (marked === undefined) return '(absent)';
  return marked.replace(/"\\u0000(-?\d+)"/g, '$1');
}
