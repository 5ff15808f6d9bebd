import { interpolationText, type Json } from '../expressions/index.js';
import { ToolRunError } from './errors.js';
import type { ToolExpressions } from './expressions.js';
import type { PendingArgument } from './bindings.js';
import { isFileObject } from './values.js';

/**
 * The words of one binding (CWL's CommandLineBinding rules, as cwltool applies them): valueFrom replaces the
 * value (with `self` the value); a list joins with itemSeparator into one value, or under valueFrom gives one word
 * each, or else only the prefix (nothing when empty); a File or Directory is its path; another object only the
 * prefix; true is the prefix alone, false and null nothing; with `separate: false` the prefix and the value are
 * one word.
 */
export async function argumentWords(argument: PendingArgument, expressions: ToolExpressions): Promise<string[]> {
  const { binding } = argument;
  const value: Json | undefined = binding.valueFrom !== undefined ? await expressions.evaluate(binding.valueFrom, argument.datum ?? null) : argument.datum;
  const prefix = binding.prefix;
  let items: Json[];
  if (Array.isArray(value)) {
    if (binding.itemSeparator && value.length > 0) items = [value.map(wordOf).join(binding.itemSeparator)];
    else if (binding.valueFrom !== undefined) return [...(prefix ? [prefix] : []), ...value.map(wordOf)];
    else return prefix && value.length > 0 ? [prefix] : [];
  } else if (isFileObject(value)) items = [value];
  else if (typeof value === 'object' && value !== null) return prefix ? [prefix] : [];
  else if (value === true) return prefix ? [prefix] : [];
  else if (value === false || value === null || value === undefined) return [];
  else items = [value];
  const words: string[] = [];
  for (const item of items) {
    if (binding.separate) words.push(...(prefix === undefined ? [] : [prefix]), wordOf(item));
    else words.push((prefix ?? '') + wordOf(item));
  }
  return words;
}

/**
 * One value as a word: a File's or Directory's path, a string as it is, a number in plain decimal notation
 * (`0.00001`, never `1e-05`, as CWL v1.2's conformance tests want), booleans and null as Python writes them.
 */
export function wordOf(value: Json): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return decimalText(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null) return 'None';
  if (isFileObject(value)) {
    if (typeof value.path !== 'string') {
      throw new ToolRunError(`a ${value.class} on the command line has no path: ${JSON.stringify(value.location ?? value.basename)}`);
    }
    return value.path;
  }
  return interpolationText(value);
}

/** A number without exponent: whole numbers exactly, others with the shortest digits that read back the same. */
export function decimalText(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (Number.isInteger(value)) return BigInt(value).toString();
  const [mantissa = '0', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const sign = value < 0 ? '-' : '';
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}
