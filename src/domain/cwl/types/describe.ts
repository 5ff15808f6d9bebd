import type { CwlType } from '../model.js';
import { shortname } from '../uri.js';

/**
 * A type as a reader writes it, for messages: `File[]`, `int?`, `Sample` (a named record), `record
 * {id, reads}`, `enum [red, green]`, `int | string`.
 */
export function describeType(type: CwlType): string {
  switch (type.kind) {
    case 'union': {
      const others = type.types.filter((t) => t.kind !== 'null');
      if (others.length === type.types.length - 1 && others.length === 1) return `${wrap(others[0]!)}?`;
      return type.types.map(describeType).join(' | ');
    }
    case 'array':
      return type.name ? shortname(type.name) : `${wrap(type.items)}[]`;
    case 'record':
      return type.name ? shortname(type.name) : `record {${type.fields.map((f) => f.name).join(', ')}}`;
    case 'enum':
      return type.name ? shortname(type.name) : `enum [${type.symbols.map((s) => s.name).join(', ')}]`;
    default:
      return type.kind;
  }
}

const wrap = (type: CwlType): string => (type.kind === 'union' ? `(${describeType(type)})` : describeType(type));

/** A value named in a message: `null`, `a list`, `a File`, `an object`, `the string "x"`, `the number 3`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') {
    const cls = (value as { class?: unknown }).class;
    return cls === 'File' || cls === 'Directory' ? `a ${cls}` : 'an object';
  }
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  if (typeof value === 'number') return Number.isInteger(value) ? `the whole number ${value}` : `the number ${value}`;
  if (typeof value === 'bigint') return `the whole number ${value}`;
  if (typeof value === 'boolean') return `boolean ${value}`;
  return typeof value;
}
