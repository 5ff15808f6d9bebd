import type { CwlIssue } from '../errors.js';
import type { CwlType, CwlValue, EnumType, RecordType } from '../model.js';
import { describeType, describeValue } from './describe.js';
import { checkFormats, type FormatOntology } from './format.js';
import { child, coerceDirectory, coerceFile, issue, type ValuePlace } from './files.js';

type Json = Record<string, unknown>;

/** What checking a value against a type may use, and where its problems go. */
export interface CoercionContext {
  readonly issues: CwlIssue[];
  /** Decides whether one format URI is a kind of another (an ontology); exact match otherwise. */
  readonly ontology?: FormatOntology;
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
/** A long's range. Integers beyond 2^53 are bigints (contract/exact-json.ts); a bigint is never an int. */
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * Checks `value` against `type` and returns it in the model's form: Files and Directories
 * normalized (coerceFile), enum symbols by their short name, records with only their declared
 * fields (a missing optional field is null), union values as the first member type they match.
 * Numbers are not converted from strings (nor strings from numbers), as cwltool does not. On a
 * mismatch the problem, naming the path (`inputs.reads[2].format`), is added to the context's
 * issues and the result is undefined.
 */
export function coerceValue(type: CwlType, value: unknown, place: ValuePlace, context: CoercionContext): CwlValue | undefined {
  switch (type.kind) {
    case 'null':
      return value === null || value === undefined ? null : mismatch(type, value, place, context);
    case 'boolean':
      return typeof value === 'boolean' ? value : mismatch(type, value, place, context);
    case 'int':
      return Number.isInteger(value) && (value as number) >= INT_MIN && (value as number) <= INT_MAX
        ? (value as number)
        : mismatch(type, value, place, context);
    case 'long':
      if (typeof value === 'bigint') return value >= LONG_MIN && value <= LONG_MAX ? value : mismatch(type, value, place, context);
      return Number.isInteger(value) ? (value as number) : mismatch(type, value, place, context);
    case 'float':
    case 'double':
      // As in the reference runner, an integer of any size is a double's value, kept exact.
      if (typeof value === 'bigint') return value;
      return typeof value === 'number' && Number.isFinite(value) ? value : mismatch(type, value, place, context);
    case 'string':
      return typeof value === 'string' ? value : mismatch(type, value, place, context);
    case 'File':
      return classOf(value) === 'File' ? coerceFile(value as Json, place, context.issues) : mismatch(type, value, place, context);
    case 'Directory':
      return classOf(value) === 'Directory' ? coerceDirectory(value as Json, place, context.issues) : mismatch(type, value, place, context);
    case 'Any':
      return value === null || value === undefined ? mismatch(type, value, place, context) : anyValue(value, place, context);
    case 'array':
      if (!Array.isArray(value)) return mismatch(type, value, place, context);
      return all(value.map((item, index) => coerceValue(type.items, item, child(place, value, index), context)));
    case 'record':
      return isRecordValue(value) ? recordValue(type, value, place, context) : mismatch(type, value, place, context);
    case 'enum':
      return enumValue(type, value, place, context);
    case 'union':
      return unionValue(type.types, value, place, context);
  }
}

function recordValue(type: RecordType, value: Json, place: ValuePlace, context: CoercionContext): CwlValue | undefined {
  const out: Record<string, CwlValue> = {};
  let ok = true;
  for (const field of type.fields) {
    const fieldPlace = child(place, value, field.name);
    const raw = value[field.name];
    const coerced =
      raw === undefined && field.type.kind !== 'Any' ? coerceValue(field.type, null, fieldPlace, context) : coerceValue(field.type, raw, fieldPlace, context);
    if (coerced === undefined) ok = false;
    else {
      out[field.name] = coerced;
      if (field.format && !checkFormats(coerced, field.format, fieldPlace, context)) ok = false;
    }
  }
  return ok ? out : undefined;
}

function enumValue(type: EnumType, value: unknown, place: ValuePlace, context: CoercionContext): CwlValue | undefined {
  const symbol = typeof value === 'string' ? type.symbols.find((s) => s.name === value || s.uri === value) : undefined;
  if (symbol) return symbol.name;
  context.issues.push(issue(place, `expected one of ${type.symbols.map((s) => s.name).join(', ')}, not ${describeValue(value)}`));
  return undefined;
}

/**
 * The first member the value matches. When none does, the problem reported is the one of the
 * member of the value's own kind (a File against `File | string` reports the File's problem),
 * else a plain mismatch naming the union.
 */
function unionValue(types: readonly CwlType[], value: unknown, place: ValuePlace, context: CoercionContext): CwlValue | undefined {
  const attempts: CwlIssue[][] = [];
  for (const member of types) {
    const issues: CwlIssue[] = [];
    const coerced = coerceValue(member, value, place, { ...context, issues });
    if (coerced !== undefined) return coerced;
    attempts.push(issues);
  }
  const sameKind = types.findIndex((t) => sameShape(t, value));
  if (sameKind >= 0 && types.filter((t) => sameShape(t, value)).length === 1) context.issues.push(...attempts[sameKind]!);
  else context.issues.push(issue(place, `expected ${types.map(describeType).join(' | ')}, not ${describeValue(value)}`));
  return undefined;
}

/** Whether a value is of the kind a type takes, so that the type's own complaint is the useful one. */
function sameShape(type: CwlType, value: unknown): boolean {
  switch (type.kind) {
    case 'File':
    case 'Directory':
      return classOf(value) === type.kind;
    case 'array':
      return Array.isArray(value);
    case 'record':
      return isRecordValue(value);
    case 'enum':
      return typeof value === 'string';
    default:
      return false;
  }
}

/** A value of type Any: any non-null JSON, with the Files and Directories inside it normalized. */
function anyValue(value: unknown, place: ValuePlace, context: CoercionContext): CwlValue | undefined {
  if (Array.isArray(value)) return all(value.map((item, index) => (item === null ? null : anyValue(item, child(place, value, index), context))));
  if (typeof value !== 'object' || value === null) return value as CwlValue;
  const cls = classOf(value);
  if (cls === 'File') return coerceFile(value as Json, place, context.issues);
  if (cls === 'Directory') return coerceDirectory(value as Json, place, context.issues);
  const out: Record<string, CwlValue> = {};
  for (const [key, item] of Object.entries(value)) {
    const coerced = item === null ? null : anyValue(item, child(place, value, key), context);
    if (coerced === undefined) return undefined;
    out[key] = coerced;
  }
  return out;
}

function mismatch(type: CwlType, value: unknown, place: ValuePlace, context: CoercionContext): undefined {
  const what = value === null || value === undefined ? 'is missing (null)' : `must be ${describeType(type)}, not ${describeValue(value)}`;
  context.issues.push(issue(place, value === null || value === undefined ? `${what}; expected ${describeType(type)}` : what));
  return undefined;
}

const classOf = (value: unknown): unknown => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json).class : undefined);

const isRecordValue = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && classOf(value) !== 'File' && classOf(value) !== 'Directory';

/** The list, when every item came through. */
const all = (items: (CwlValue | undefined)[]): CwlValue | undefined => (items.every((i) => i !== undefined) ? items : undefined);
