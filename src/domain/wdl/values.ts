import { WdlRuntimeError } from './errors.js';
import { typeText, type StructTable, type WdlType } from './types.js';

/**
 * WDL values, tagged with their kind so that an Int stays an Int (1 is not 1.0) and a File stays a File when they are
 * kept as JSON in a job's outputs. A File's or Directory's `v` is a path: in the engine, a host path.
 */
export type WdlValue =
  | { readonly t: 'None' }
  | { readonly t: 'Boolean'; readonly v: boolean }
  | { readonly t: 'Int' | 'Float'; readonly v: number }
  | { readonly t: 'String' | 'File' | 'Directory'; readonly v: string }
  | { readonly t: 'Array'; readonly items: readonly WdlValue[] }
  | { readonly t: 'Map'; readonly entries: readonly (readonly [WdlValue, WdlValue])[] }
  | { readonly t: 'Pair'; readonly left: WdlValue; readonly right: WdlValue }
  | { readonly t: 'Object'; readonly members: { readonly [name: string]: WdlValue } }
  | { readonly t: 'Struct'; readonly name: string; readonly members: { readonly [name: string]: WdlValue } };

export const NONE: WdlValue = { t: 'None' };
export const int = (v: number): WdlValue => ({ t: 'Int', v });
export const float = (v: number): WdlValue => ({ t: 'Float', v });
export const str = (v: string): WdlValue => ({ t: 'String', v });
export const bool = (v: boolean): WdlValue => ({ t: 'Boolean', v });
export const array = (items: readonly WdlValue[]): WdlValue => ({ t: 'Array', items });

/** The value as a placeholder writes it: Floats with six decimals, as the spec's examples show. */
export function stringOf(value: WdlValue): string {
  switch (value.t) {
    case 'None':
      return '';
    case 'Boolean':
      return String(value.v);
    case 'Int':
      return String(value.v);
    case 'Float':
      return value.v.toFixed(6);
    case 'String':
    case 'File':
    case 'Directory':
      return value.v;
    default:
      throw new WdlRuntimeError(`a ${value.t} cannot be written as a string`);
  }
}

/** The value coerced to `type` (spec "Type Coercion"); WdlRuntimeError says why it cannot be. */
export function coerce(value: WdlValue, type: WdlType, structs: StructTable): WdlValue {
  if (type.kind === 'Any') return value;
  if (value.t === 'None') {
    if (type.optional || type.kind === 'None') return value;
    throw new WdlRuntimeError(`a value of type ${typeText(type)} is required, but it is undefined (None)`);
  }
  const fail = (): never => {
    throw new WdlRuntimeError(`a ${value.t} cannot be coerced to ${typeText(type)}`);
  };
  switch (type.kind) {
    case 'Int':
      if (value.t === 'String' && /^\s*[+-]?\d+\s*$/.test(value.v)) return int(Number(value.v));
      return value.t === 'Int' ? value : fail();
    case 'Boolean':
      if (value.t === 'String' && /^\s*(true|false)\s*$/.test(value.v)) return bool(value.v.trim() === 'true');
      return value.t === 'Boolean' ? value : fail();
    case 'Float':
      if (value.t === 'String' && value.v.trim() !== '' && !Number.isNaN(Number(value.v))) return float(Number(value.v));
      return value.t === 'Float' ? value : value.t === 'Int' ? float(value.v) : fail();
    case 'String':
      return value.t === 'String' ? value : 'v' in value ? str(stringOf(value)) : fail();
    case 'File':
    case 'Directory':
      return value.t === type.kind ? value : value.t === 'String' || value.t === 'File' ? { t: type.kind, v: value.v } : fail();
    case 'Array': {
      if (value.t !== 'Array') return fail();
      if (type.nonEmpty && value.items.length === 0) throw new WdlRuntimeError(`an empty array cannot be a ${typeText(type)}`);
      return array(value.items.map((item) => coerce(item, type.item, structs)));
    }
    case 'Map':
      if (value.t === 'Map')
        return { t: 'Map', entries: value.entries.map(([k, v]) => [coerce(k, type.key, structs), coerce(v, type.value, structs)] as const) };
      if (value.t === 'Object' || value.t === 'Struct')
        return {
          t: 'Map',
          entries: Object.entries(value.members).map(([k, v]) => [coerce(str(k), type.key, structs), coerce(v, type.value, structs)] as const),
        };
      return fail();
    case 'Pair':
      return value.t === 'Pair' ? { t: 'Pair', left: coerce(value.left, type.left, structs), right: coerce(value.right, type.right, structs) } : fail();
    case 'Object':
      if (value.t === 'Object') return value;
      if (value.t === 'Struct') return { t: 'Object', members: value.members };
      if (value.t === 'Map') return { t: 'Object', members: Object.fromEntries(value.entries.map(([k, v]) => [stringOf(k), v])) };
      return fail();
    case 'Struct':
      return toStruct(value, type.name, structs);
    default:
      return fail();
  }
}

function toStruct(value: WdlValue, name: string, structs: StructTable): WdlValue {
  const members = structs.get(name);
  if (!members) throw new WdlRuntimeError(`struct '${name}' is not defined`);
  let given: Record<string, WdlValue>;
  if (value.t === 'Struct' || value.t === 'Object') given = { ...value.members };
  else if (value.t === 'Map') given = Object.fromEntries(value.entries.map(([k, v]) => [stringOf(k), v]));
  else throw new WdlRuntimeError(`a ${value.t} cannot be coerced to struct ${name}`);
  const out: Record<string, WdlValue> = {};
  for (const key of Object.keys(given)) if (!members.has(key)) throw new WdlRuntimeError(`struct ${name} has no member '${key}'`);
  for (const [member, type] of members) {
    const item = given[member];
    if (item === undefined && !type.optional) throw new WdlRuntimeError(`struct ${name} needs a value for its member '${member}'`);
    out[member] = coerce(item ?? NONE, type, structs);
  }
  return { t: 'Struct', name, members: out };
}

/** A JSON value (an inputs file's) as a value of `type`. */
export function fromJson(json: unknown, type: WdlType, structs: StructTable, where: string): WdlValue {
  const fail = (): never => {
    throw new WdlRuntimeError(`${where}: ${JSON.stringify(json)?.slice(0, 80)} is not a ${typeText(type)}`);
  };
  if (json === null || json === undefined) return type.optional || type.kind === 'Any' ? NONE : fail();
  switch (type.kind) {
    case 'Int':
      return typeof json === 'number' && Number.isInteger(json) ? int(json) : fail();
    case 'Float':
      return typeof json === 'number' ? float(json) : fail();
    case 'Boolean':
      return typeof json === 'boolean' ? bool(json) : fail();
    case 'String':
      return typeof json === 'string' ? str(json) : typeof json === 'number' ? str(String(json)) : fail();
    case 'File':
    case 'Directory':
      return typeof json === 'string' ? { t: type.kind, v: json } : fail();
    case 'Array':
      if (!Array.isArray(json)) return fail();
      if (type.nonEmpty && json.length === 0) return fail();
      return array(json.map((item, i) => fromJson(item, type.item, structs, `${where}[${i}]`)));
    case 'Pair': {
      if (typeof json !== 'object' || Array.isArray(json) || !('left' in json) || !('right' in json)) return fail();
      return { t: 'Pair', left: fromJson(json.left, type.left, structs, `${where}.left`), right: fromJson(json.right, type.right, structs, `${where}.right`) };
    }
    case 'Map':
      if (typeof json !== 'object' || Array.isArray(json)) return fail();
      return {
        t: 'Map',
        entries: Object.entries(json).map(([k, v]) => [coerce(str(k), type.key, structs), fromJson(v, type.value, structs, `${where}.${k}`)] as const),
      };
    case 'Object':
      if (typeof json !== 'object' || Array.isArray(json)) return fail();
      return { t: 'Object', members: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, guess(v)])) };
    case 'Struct': {
      if (typeof json !== 'object' || Array.isArray(json)) return fail();
      const members = structs.get(type.name);
      if (!members) return fail();
      const given = json as Record<string, unknown>;
      const out: Record<string, WdlValue> = {};
      for (const key of Object.keys(given)) if (!members.has(key)) throw new WdlRuntimeError(`${where}: struct ${type.name} has no member '${key}'`);
      for (const [member, memberType] of members) out[member] = fromJson(given[member], memberType, structs, `${where}.${member}`);
      return { t: 'Struct', name: type.name, members: out };
    }
    default:
      return guess(json);
  }
}

/** A JSON value whose type is not declared (an Object's member, read_json's result). */
export function guess(json: unknown): WdlValue {
  if (json === null || json === undefined) return NONE;
  if (typeof json === 'boolean') return bool(json);
  if (typeof json === 'number') return Number.isInteger(json) ? int(json) : float(json);
  if (typeof json === 'string') return str(json);
  if (Array.isArray(json)) return array(json.map(guess));
  return { t: 'Object', members: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, guess(v)])) };
}

/** The value as JSON, as engines print outputs: Pairs as {left, right}, Maps and structs as objects. */
export function toJson(value: WdlValue): unknown {
  switch (value.t) {
    case 'None':
      return null;
    case 'Array':
      return value.items.map(toJson);
    case 'Pair':
      return { left: toJson(value.left), right: toJson(value.right) };
    case 'Map':
      return Object.fromEntries(value.entries.map(([k, v]) => [stringOf(k), toJson(v)]));
    case 'Object':
    case 'Struct':
      return Object.fromEntries(Object.entries(value.members).map(([k, v]) => [k, toJson(v)]));
    default:
      return value.v;
  }
}

/** Equality as `==` has it: Int and Float by number, File and String by text. */
export function equal(a: WdlValue, b: WdlValue): boolean {
  if (a.t === 'None' || b.t === 'None') return a.t === b.t;
  if ('v' in a && 'v' in b) return a.v === b.v;
  if (a.t === 'Array' && b.t === 'Array') return a.items.length === b.items.length && a.items.every((item, i) => equal(item, b.items[i]!));
  if (a.t === 'Pair' && b.t === 'Pair') return equal(a.left, b.left) && equal(a.right, b.right);
  if (a.t === 'Map' && b.t === 'Map')
    return a.entries.length === b.entries.length && a.entries.every(([k, v], i) => equal(k, b.entries[i]![0]) && equal(v, b.entries[i]![1]));
  if ((a.t === 'Object' || a.t === 'Struct') && (b.t === 'Object' || b.t === 'Struct')) {
    const keys = Object.keys(a.members);
    return keys.length === Object.keys(b.members).length && keys.every((k) => b.members[k] !== undefined && equal(a.members[k]!, b.members[k]));
  }
  return false;
}
