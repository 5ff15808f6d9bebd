import { invalid } from './errors.js';

/** Small checks over untyped JSON whose failures name the member by its path. */

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  // A function, symbol or bigint by its type (not spelt out: an exported CWL document embeds this code, and the ES5
  // linter cwltool runs over it warns at a typeof compared with 'bigint').
  if (!['object', 'string', 'number', 'boolean'].includes(typeof value)) return typeof value;
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 60)}`;
}

export function expectObject(value: unknown, path: string): JsonObject {
  if (!isObject(value)) throw invalid(`${path} must be an object, not ${describe(value)}`);
  return value;
}

/** An object, or an empty one where the member is absent or null. */
export function optionalObject(value: unknown, path: string): JsonObject {
  return value === undefined || value === null ? {} : expectObject(value, path);
}

export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${path} must be a string, not ${describe(value)}`);
  return value;
}

export function optionalBoolean(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(`${path} must be true or false, not ${describe(value)}`);
  return value;
}

export function optionalCount(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(`${path} must be a non-negative integer, not ${describe(value)}`);
  }
  return value;
}

export function optionalNumber(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${path} must be a number, not ${describe(value)}`);
  return value;
}

/** A list of strings, or a comma-separated string of them (outputs give `formats` as a string). */
export function formatList(value: unknown): string[] {
  if (Array.isArray(value))
    return value
      .filter((v): v is string => typeof v === 'string')
      .map((v) => v.trim())
      .filter(Boolean);
  if (typeof value === 'string')
    return value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  return [];
}
