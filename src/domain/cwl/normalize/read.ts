import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { SourcePosition } from '../errors.js';
import type { NormalizeContext } from './context.js';
import { holdsExpression } from '../uri.js';

export type Json = Record<string, unknown>;

/**
 * Typed reads of one record's fields. A field that is absent or null reads as undefined (schema-
 * salad treats an explicit null as absent); a field of the wrong type is reported, at its line,
 * naming the record and the field, and reads as undefined so that the load goes on and reports
 * every problem at once.
 */
export class RecordReader {
  constructor(
    readonly node: Json,
    /** The record's kind for messages: `CommandLineTool`, `input 'reads'`. */
    readonly what: string,
    readonly context: NormalizeContext,
  ) {}

  at(key?: string): SourcePosition | undefined {
    return positionOf(this.node, key);
  }

  error(message: string, key?: string): void {
    this.context.diagnostics.error(message, this.at(key));
  }

  warn(message: string, key?: string): void {
    this.context.diagnostics.warn(message, this.at(key));
  }

  get(key: string): unknown {
    const value = this.node[key];
    return value === null ? undefined : value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  private wrong(key: string, expected: string): undefined {
    this.error(`'${key}' of ${this.what} must be ${expected}, not ${describeValue(this.get(key))}`, key);
    return undefined;
  }

  string(key: string): string | undefined {
    const value = this.get(key);
    return value === undefined || typeof value === 'string' ? value : this.wrong(key, 'a string');
  }

  required(key: string): unknown {
    const value = this.get(key);
    if (value === undefined) this.error(`${this.what} is missing its required field '${key}'`);
    return value;
  }

  requiredString(key: string): string | undefined {
    return this.required(key) === undefined ? undefined : this.string(key);
  }

  boolean(key: string): boolean | undefined {
    const value = this.get(key);
    return value === undefined || typeof value === 'boolean' ? value : this.wrong(key, 'true or false');
  }

  integer(key: string): number | undefined {
    const value = this.get(key);
    return value === undefined || Number.isSafeInteger(value) ? (value as number | undefined) : this.wrong(key, 'a whole number');
  }

  /** A string that must hold an expression (`$(…)` or `${…}`), as fields typed `Expression` require. */
  expression(key: string): string | undefined {
    const value = this.get(key);
    if (value === undefined) return undefined;
    return typeof value === 'string' && holdsExpression(value) ? value : this.wrong(key, 'an expression ($(…) or ${…})');
  }

  booleanOrExpression(key: string): boolean | string | undefined {
    const value = this.get(key);
    if (value === undefined || typeof value === 'boolean') return value;
    return typeof value === 'string' && holdsExpression(value) ? value : this.wrong(key, 'true, false or an expression');
  }

  /** A number (a whole one unless `fractions`), or an expression. */
  numberOrExpression(key: string, fractions: boolean): number | string | undefined {
    const value = this.get(key);
    if (value === undefined) return undefined;
    if (typeof value === 'string' && holdsExpression(value)) return value;
    if (typeof value === 'number' && (fractions ? Number.isFinite(value) : Number.isSafeInteger(value))) return value;
    return this.wrong(key, `${fractions ? 'a number' : 'a whole number'} or an expression`);
  }

  oneOf<T extends string>(key: string, symbols: readonly T[]): T | undefined {
    const value = this.get(key);
    if (value === undefined || symbols.includes(value as T)) return value as T | undefined;
    return this.wrong(key, `one of ${symbols.join(', ')}`);
  }

  /** A string or a list of strings, as a list. */
  strings(key: string): string[] | undefined {
    const value = this.get(key);
    if (value === undefined) return undefined;
    if (typeof value === 'string') return [value];
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
    return this.wrong(key, 'a string or a list of strings');
  }

  integers(key: string): number[] | undefined {
    const value = this.get(key);
    if (value === undefined) return undefined;
    if (Array.isArray(value) && value.every((v) => Number.isSafeInteger(v))) return value as number[];
    return this.wrong(key, 'a list of whole numbers');
  }

  object(key: string): Json | undefined {
    const value = this.get(key);
    return value === undefined || isPlainObject(value) ? value : this.wrong(key, 'an object');
  }

  list(key: string): unknown[] | undefined {
    const value = this.get(key);
    return value === undefined || Array.isArray(value) ? value : this.wrong(key, 'a list');
  }

  /** `doc`: a string, or a list of strings joined with newlines. */
  doc(key = 'doc'): string | undefined {
    return this.strings(key)?.join('\n');
  }
}

/** Copies the defined members of `fields` onto `target`, so that optional members stay absent rather than undefined. */
export function assignDefined<T extends object>(target: T, fields: { [K in keyof T]?: T[K] | undefined }): T {
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
  return target;
}
