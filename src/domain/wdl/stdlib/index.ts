import { WdlRuntimeError } from '../errors.js';
import type { WdlValue } from '../values.js';
import { COLLECTION_FUNCTIONS } from './collections.js';
import { FILE_FUNCTIONS } from './file-functions.js';
import { NUMBER_FUNCTIONS } from './numbers.js';
import { STRING_FUNCTIONS } from './strings.js';

import type { FunctionContext, WdlFunction } from './types.js';

export type { FunctionContext, WdlFunction } from './types.js';

/** WDL 1.1's standard library (spec "Standard Library"), by name. */
export const FUNCTIONS: ReadonlyMap<string, { readonly arity: readonly [number, number]; readonly fn: WdlFunction }> = new Map([
  ...COLLECTION_FUNCTIONS,
  ...STRING_FUNCTIONS,
  ...NUMBER_FUNCTIONS,
  ...FILE_FUNCTIONS,
]);

export function callFunction(name: string, args: readonly WdlValue[], context: FunctionContext): WdlValue {
  const entry = FUNCTIONS.get(name);
  if (!entry) throw new WdlRuntimeError(`unknown function '${name}'`);
  const [min, max] = entry.arity;
  if (args.length < min || args.length > max)
    throw new WdlRuntimeError(`${name}() takes ${min === max ? min : `${min} to ${max}`} arguments, not ${args.length}`);
  return entry.fn(args, context);
}
