import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/**
 * JSON whose integers stay exact. CWL values are JSON, and the reference runner (Python) keeps integers of any size:
 * the conformance suite passes `4200000000000000000000000000000000000000000` through documents, job objects,
 * parameter references and output objects and expects those very digits back. A JavaScript number holds integers
 * exactly up to 2^53 only, so an integer beyond that is a `bigint` wherever CWL values go: read from YAML (the
 * document parser), from JSON here, and written back as its digits here. Every other number is an ordinary number.
 *
 * Both functions take the fast native path unless the text or the value needs the exact one: text with no run of 16
 * digits cannot hold an integer of 2^53 or more, and JSON.stringify only fails on a bigint.
 */

/** The values these functions read and write: JSON, with integers beyond 2^53 as bigints. */
export type ExactJson = null | boolean | number | bigint | string | ExactJson[] | { [key: string]: ExactJson };

/**
 * 2^53 = 9007199254740992 has 16 digits: a shorter run of digits is a safe integer (or no integer at all). A JSON number
 * token begins the text or follows `[`, `:`, `,` or white space, so a run of 16 digits after anything else is inside a
 * string (ids such as a task's 24 hex characters often hold one: the slow exact parser is not needed for them). A run
 * in a string after one of those characters only takes the exact path needlessly.
 */
const LONG_DIGITS = /(?:^|[[:,\s])-?\d{16}/;
const INTEGER = /^[-+]?\d+$/;

/** A JSON number's text as a number, or as a bigint when it is an integer a double cannot hold exactly. */
export function exactNumber(text: string): number | bigint {
  const value = Number(text);
  return INTEGER.test(text) && !Number.isSafeInteger(value) ? BigInt(text) : value;
}

/** An integer as a number when a double holds it exactly, else as a bigint (the form every CWL value has). */
export const exactInteger = (value: bigint): number | bigint => (Number.isSafeInteger(Number(value)) ? Number(value) : value);

/** Whether JSON text may hold an integer beyond 2^53 (a number token of 16 digits or more): else JSON.parse reads it exactly. */
export const mayHoldUnsafeIntegers = (text: string): boolean => LONG_DIGITS.test(text);

/**
 * JSON.parse, with integers beyond 2^53 as bigints. Like JSON.parse, a key given twice takes its last value and a
 * `__proto__` key is an ordinary member. Throws SyntaxError for text that is not JSON.
 */
export function parseExactJson(text: string): unknown {
  if (!mayHoldUnsafeIntegers(text)) return JSON.parse(text);
  return parseLossless(text, null, { parseNumber: exactNumber, onDuplicateKey: ({ newValue }) => newValue });
}

/**
 * JSON.stringify (without a replacer), writing bigints as their digits. Undefined members and functions are left
 * out as JSON.stringify leaves them; a value that is undefined gives undefined (typed as JSON.stringify's is).
 */
export function stringifyExactJson(value: unknown, space?: number | string): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (error) {
    // V8: "Do not know how to serialize a BigInt". A cycle and the like are thrown again below, by the same rules.
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
    return stringifyLossless(value, null, space) as string;
  }
}
