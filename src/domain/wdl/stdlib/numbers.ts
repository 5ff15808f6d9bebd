import { WdlRuntimeError } from '../errors.js';
import { float, int, type WdlValue } from '../values.js';
import type { FunctionEntry as Entry } from './types.js';
import { numberArg } from './util.js';

const rounding = (name: string, round: (n: number) => number): Entry => [name, { arity: [1, 1], fn: ([x]) => int(round(numberArg(x, name))) }];

/** min and max: an Int of two Ints, else a Float. */
const extreme = (name: string, pick: (a: number, b: number) => number): Entry => [
  name,
  {
    arity: [2, 2],
    fn: ([a, b]) => {
      const value = pick(numberArg(a, name), numberArg(b, name));
      return a!.t === 'Int' && b!.t === 'Int' ? int(value) : float(value);
    },
  },
];

export const NUMBER_FUNCTIONS: readonly Entry[] = [
  rounding('floor', Math.floor),
  rounding('ceil', Math.ceil),
  // Half away from zero, as the spec's round says ("rounds to the nearest integer, half up").
  rounding('round', (n) => Math.sign(n) * Math.round(Math.abs(n))),
  extreme('min', Math.min),
  extreme('max', Math.max),
];

export function checkInt(value: number, fn: string): WdlValue {
  if (!Number.isSafeInteger(value)) throw new WdlRuntimeError(`${fn}() gives ${value}, which is not an Int`);
  return int(value);
}
