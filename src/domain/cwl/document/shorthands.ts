import type { Diagnostics, SourcePosition } from '../errors.js';
import { copyPositions, positionOf, setChildPosition, setPosition } from './positions.js';

/** schema-salad's syntactic shorthands, each a pure rewrite of one node that keeps positions. */

type Json = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The map form of a mapSubject field as a list (schema-salad's idmap): each key becomes the
 * `subject` field of its value; a value that is not an object becomes `{predicate: value}`.
 * Sorted by key, as schema-salad sorts (so the order does not depend on the YAML's order).
 */
export function mapToList(map: Json, rule: { subject: string; predicate?: string }, diagnostics: Diagnostics): Json[] {
  const list: Json[] = [];
  copyPositions(map, list);
  for (const key of Object.keys(map).sort()) {
    const keyAt = positionOf(map, key);
    const value = map[key];
    let entry: Json;
    if (isPlainObject(value)) {
      entry = { ...value };
      copyPositions(value, entry);
    } else if (rule.predicate !== undefined) {
      entry = { [rule.predicate]: value };
      if (keyAt) setPosition(entry, keyAt);
      if (keyAt) setChildPosition(entry, rule.predicate, keyAt);
    } else {
      diagnostics.error(`'${key}' must map to an object (its fields), not ${describeValue(value)}`, keyAt);
      continue;
    }
    entry[rule.subject] = key;
    if (keyAt) setChildPosition(entry, rule.subject, keyAt);
    if (keyAt) setChildPosition(list, list.length, keyAt);
    list.push(entry);
  }
  return list;
}

/**
 * The type shorthand (typeDSL): `T?` is `["null", T]`, `T[]` is `{type: array, items: T}`, and they
 * nest (`int[][]?`). A string without a suffix is returned as it is.
 */
export function expandTypeShorthand(type: string, at: SourcePosition | undefined): unknown {
  if (type.endsWith('?')) return positioned(['null', expandTypeShorthand(type.slice(0, -1), at)], at);
  if (type.endsWith('[]')) return positioned({ type: 'array', items: expandTypeShorthand(type.slice(0, -2), at) }, at);
  return type;
}

function positioned<T extends object>(node: T, at: SourcePosition | undefined): T {
  if (at) setPosition(node, at);
  return node;
}

/** Applies `f` to a string or to each string of a list (other values unchanged). */
export function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (!Array.isArray(value)) return value;
  const out = (value as unknown[]).map((item) => (typeof item === 'string' ? f(item) : item));
  copyPositions(value, out);
  return out;
}

/** A value named in a message: `a list`, `an object`, `the number 3`, `"text"`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${typeof value} ${value}`;
  return typeof value;
}
