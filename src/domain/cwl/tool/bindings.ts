import type { Json } from '../expressions/index.js';
import type { CommandLineBinding, CommandLineTool, CwlType } from '../model.js';
import { describeType } from '../types/describe.js';
import { ToolRunError } from './errors.js';
import { brief, type ToolExpressions } from './expressions.js';
import { matchesType } from './values.js';

/**
 * The command line's pieces before they become words: which binding applies to which value, and where it goes.
 * The order is CWL's (sort by position, then by input name; arguments before inputs at the same position,
 * baseCommand first), decided exactly as cwltool decides it, because documents rely on its tie-breaks: every
 * piece gets a sort key, a list of positions and names (an input `reads` at position 2 has [2, 'reads'], its
 * third item [2, 'reads', 2, 0, 'reads', 'reads']), compared item by item, numbers before strings.
 */

export type SortKey = readonly (number | string)[];

export interface PendingArgument {
  readonly key: SortKey;
  readonly binding: CommandLineBinding;
  /** The value bound (the input's, an item's, a field's); for baseCommand and arguments, the word or nothing. */
  readonly datum: Json | undefined;
}

const BASE_COMMAND = -1000000;
const PLAIN: CommandLineBinding = { position: 0, separate: true, shellQuote: true };

export async function pendingArguments(
  tool: CommandLineTool,
  values: Readonly<Record<string, Json>>,
  expressions: ToolExpressions,
): Promise<PendingArgument[]> {
  const pending: PendingArgument[] = [];
  for (const input of tool.inputs) {
    const value = values[input.name];
    if (value === null || value === undefined) continue;
    pending.push(...(await bind(input.type, input.inputBinding, undefined, value, [], [input.name], `inputs.${input.name}`, expressions)));
  }
  tool.baseCommand.forEach((word, index) => pending.push({ key: [BASE_COMMAND, index], binding: PLAIN, datum: word }));
  for (const [index, binding] of tool.arguments.entries()) {
    const position = typeof binding.position === 'number' ? binding.position : await expressions.evaluate(binding.position);
    if (position !== null && !Number.isInteger(position)) throw positionError(`arguments[${index}]`, binding.position, position);
    pending.push({ key: [(position as number | null) ?? 0, index], binding, datum: undefined });
  }
  return pending.sort((a, b) => compareKeys(a.key, b.key));
}

/** cwltool's comparison of sort keys (Python 2's order): item by item, a shorter key first, strings compared as strings. */
export function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'string' || typeof y === 'string') return String(x) > String(y) ? 1 : -1;
    return x > y ? 1 : -1;
  }
  return 0;
}

/**
 * The pieces of one value with its type and binding (cwltool's bind_input). `key`, when given, is the binding's
 * position already decided (an array item's copy of the array's binding). An anonymous array, record or enum type
 * binds its value with the type's own binding (an array without one, under a binding without itemSeparator, binds
 * each item plainly), and the value's own binding comes after, prefixing the nested keys; a named array type, or
 * a list of type Any, gives each item the value's binding instead. With valueFrom, the nested pieces are dropped:
 * valueFrom decides the words.
 */
async function bind(
  type: CwlType,
  binding: CommandLineBinding | undefined,
  key: SortKey | undefined,
  datum: Json,
  lead: SortKey,
  tail: SortKey,
  path: string,
  expressions: ToolExpressions,
  direct = false,
): Promise<PendingArgument[]> {
  let own: PendingArgument | undefined;
  if (binding !== undefined) own = { key: [...lead, ...(key ?? [await position(binding, datum, path, expressions)]), ...tail], binding, datum };
  const valueFrom = binding?.valueFrom !== undefined;
  let nested: PendingArgument[] = [];
  if (type.kind === 'union') {
    const member = type.types.find((t) => matchesType(t, datum));
    if (member === undefined) throw new ToolRunError(`${path}: ${brief(datum)} is not a ${describeType(type)}`);
    if (!valueFrom) return bind(member, binding, key, datum, lead, tail, path, expressions);
  } else if (!direct && (type.kind === 'array' || type.kind === 'record' || type.kind === 'enum') && type.name === undefined) {
    const plainItems = type.kind === 'array' && binding !== undefined && binding.itemSeparator === undefined ? PLAIN : undefined;
    const inner = await bind(type, type.inputBinding ?? plainItems, undefined, datum, lead, tail, path, expressions, true);
    if (!valueFrom) nested = inner;
  } else if (type.kind === 'record' && typeof datum === 'object' && datum !== null && !Array.isArray(datum)) {
    for (const field of type.fields) {
      const value = datum[field.name];
      if (value === null || value === undefined) continue;
      nested.push(...(await bind(field.type, field.inputBinding, undefined, value, lead, [field.name], `${path}.${field.name}`, expressions)));
    }
  } else if ((type.kind === 'array' || type.kind === 'Any') && Array.isArray(datum)) {
    const items: CwlType = type.kind === 'array' ? type.items : type;
    for (const [index, item] of datum.entries()) {
      nested.push(...(await bind(items, own?.binding, own?.key, item, [index], tail, `${path}[${index}]`, expressions)));
    }
    own = undefined;
  }
  if (own === undefined) return nested;
  const prefix = own.key;
  return [...nested.map((piece) => ({ ...piece, key: [...prefix, ...piece.key] })), own];
}

async function position(binding: CommandLineBinding, datum: Json, path: string, expressions: ToolExpressions): Promise<number> {
  if (typeof binding.position === 'number') return binding.position;
  const result = await expressions.evaluate(binding.position, datum);
  if (typeof result !== 'number' || !Number.isInteger(result)) throw positionError(path, binding.position, result);
  return result;
}

const positionError = (where: string, expression: Json, result: Json): ToolRunError =>
  new ToolRunError(`${where}: inputBinding position ${JSON.stringify(expression)} must give a whole number, not ${brief(result)}`);
