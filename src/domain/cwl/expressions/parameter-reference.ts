import { isJsonMap, type Json } from './json-value.js';
import type { ExpressionContext } from './evaluator.js';

/**
 * Parameter references, CWL's JavaScript-free subset: `inputs.x`, `inputs.x.y['z'][0]`, `self.length`,
 * `runtime.outdir`, `null`. They are resolved here, by walking the context, because a scatter of hundreds of
 * jobs evaluates thousands of them and most documents need nothing more.
 */

export interface ParameterReference {
  /** `inputs`, `self`, `runtime` or `null` as written; any other symbol fails to resolve. */
  root: string;
  /** A member name (`.name`, `['name']`, `["name"]`) or a list index (`[0]`), in order. */
  keys: (string | number)[];
}

export type Resolution = { ok: true; value: Json } | { ok: false; reason: string };

const SYMBOL = /^[\p{L}\p{N}_]+/u;
const INDEX = /^\[(\d+)\]/;

/** The reference that `code` (the text inside `$(...)`) is, or undefined when it is anything else (JavaScript). */
export function parseParameterReference(code: string): ParameterReference | undefined {
  const root = SYMBOL.exec(code)?.[0];
  if (root === undefined) return undefined;
  const keys: (string | number)[] = [];
  let rest = code.slice(root.length);
  while (rest !== '') {
    const segment = nextSegment(rest);
    if (segment === undefined) return undefined;
    keys.push(segment.key);
    rest = rest.slice(segment.length);
  }
  return { root, keys };
}

function nextSegment(text: string): { key: string | number; length: number } | undefined {
  if (text.startsWith('.')) {
    const symbol = SYMBOL.exec(text.slice(1))?.[0];
    return symbol === undefined ? undefined : { key: symbol, length: symbol.length + 1 };
  }
  const index = INDEX.exec(text);
  if (index?.[1] !== undefined) return { key: Number(index[1]), length: index[0].length };
  if (text.startsWith("['") || text.startsWith('["')) return quotedKey(text);
  return undefined;
}

/** `['...']` or `["..."]`; inside, a backslash may escape only the quote or a backslash. */
function quotedKey(text: string): { key: string; length: number } | undefined {
  const quote = text[1];
  let key = '';
  for (let i = 2; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== quote && next !== '\\') return undefined;
      key += next;
      i += 1;
    } else if (c === quote) {
      return text[i + 1] === ']' ? { key, length: i + 2 } : undefined;
    } else {
      key += c;
    }
  }
  return undefined;
}

/** The referenced value, or why there is none (CWL's rules: a member of an object, an index of a list or string). */
export function resolveParameterReference(reference: ParameterReference, context: ExpressionContext): Resolution {
  const { root, keys } = reference;
  if (root === 'null') return keys.length === 0 ? { ok: true, value: null } : { ok: false, reason: 'null has no members' };
  if (root !== 'inputs' && root !== 'self' && root !== 'runtime') {
    return { ok: false, reason: `${root} is not defined (a parameter reference starts with inputs, self or runtime)` };
  }
  let value: Json = context[root];
  let path: string = root;
  for (const [position, key] of keys.entries()) {
    const next = step(value, key, position === keys.length - 1);
    if (next === undefined) return { ok: false, reason: whyNot(path, value, key) };
    value = next;
    path += typeof key === 'number' ? `[${key}]` : /^[\p{L}\p{N}_]+$/u.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return { ok: true, value };
}

function step(value: Json, key: string | number, last: boolean): Json | undefined {
  if (typeof key === 'number') {
    if (Array.isArray(value)) return key < value.length ? value[key] : undefined;
    if (typeof value === 'string') return key < value.length ? value.charAt(key) : undefined;
    return undefined;
  }
  // `length` of a list (CWL) or of a string (JavaScript, whose results references must equal) when it is the last key.
  if (key === 'length' && last && (Array.isArray(value) || typeof value === 'string')) return value.length;
  if (isJsonMap(value) && Object.hasOwn(value, key)) return value[key];
  return undefined;
}

function whyNot(path: string, value: Json, key: string | number): string {
  const what = typeof key === 'number' ? `[${key}]` : `'${key}'`;
  if (typeof key === 'number' && (Array.isArray(value) || typeof value === 'string')) {
    return `${path} has ${value.length} ${Array.isArray(value) ? 'items' : 'characters'}, so ${what} is out of range`;
  }
  if (typeof key === 'string' && isJsonMap(value)) return `${path} has no member ${what}`;
  return `${path} is ${kindOf(value)}, which has no ${typeof key === 'number' ? 'index' : 'member'} ${what}`;
}

function kindOf(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string' ? 'a string' : `the ${typeof value} ${String(value)}`;
}
