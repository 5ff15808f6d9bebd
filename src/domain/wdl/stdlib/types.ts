import type { WdlFiles } from '../files.js';
import type { StructTable } from '../types.js';
import type { WdlValue } from '../values.js';

/** What a standard library function may use beside its arguments. */
export interface FunctionContext {
  readonly structs: StructTable;
  readonly files: WdlFiles;
}

export type WdlFunction = (args: readonly WdlValue[], context: FunctionContext) => WdlValue;

/** A function of the library: its name, how many arguments it takes (least, most), and what it does. */
export type FunctionEntry = readonly [string, { readonly arity: readonly [number, number]; readonly fn: WdlFunction }];
