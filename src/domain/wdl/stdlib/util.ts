import { WdlRuntimeError } from '../errors.js';
import type { WdlValue } from '../values.js';

export function arrayArg(value: WdlValue | undefined, fn: string): readonly WdlValue[] {
  if (value?.t === 'Array') return value.items;
  throw new WdlRuntimeError(`${fn}() needs an Array, not a ${value?.t ?? 'nothing'}`);
}

export function textArg(value: WdlValue | undefined, fn: string): string {
  if (value && (value.t === 'String' || value.t === 'File' || value.t === 'Directory')) return value.v;
  if (value && (value.t === 'Int' || value.t === 'Float')) return String(value.v);
  throw new WdlRuntimeError(`${fn}() needs a String, not a ${value?.t ?? 'nothing'}`);
}

export function numberArg(value: WdlValue | undefined, fn: string): number {
  if (value && (value.t === 'Int' || value.t === 'Float')) return value.v;
  throw new WdlRuntimeError(`${fn}() needs a number, not a ${value?.t ?? 'nothing'}`);
}

export function intArg(value: WdlValue | undefined, fn: string): number {
  if (value?.t === 'Int') return value.v;
  throw new WdlRuntimeError(`${fn}() needs an Int, not a ${value?.t ?? 'nothing'}`);
}
