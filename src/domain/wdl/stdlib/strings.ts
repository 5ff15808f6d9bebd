import { WdlRuntimeError } from '../errors.js';
import { array, str, stringOf, type WdlValue } from '../values.js';
import type { FunctionEntry as Entry } from './types.js';
import { arrayArg, textArg } from './util.js';

const strings = (value: WdlValue | undefined, fn: string): string[] =>
  arrayArg(value, fn).map((item) => {
    if (item.t === 'Array' || item.t === 'Map' || item.t === 'Pair' || item.t === 'Object' || item.t === 'Struct')
      throw new WdlRuntimeError(`${fn}() needs an Array of primitive values`);
    return stringOf(item);
  });

/** A POSIX extended regular expression as JavaScript's (the common subset: classes like [[:space:]] mapped). */
export function posixRegex(pattern: string): RegExp {
  const classes: Record<string, string> = {
    alpha: 'A-Za-z',
    digit: '0-9',
    alnum: 'A-Za-z0-9',
    space: '\\s',
    upper: 'A-Z',
    lower: 'a-z',
    punct: '!-/:-@[-`{-~',
    xdigit: '0-9A-Fa-f',
  };
  const translated = pattern.replace(/\[:([a-z]+):\]/g, (whole, name: string) => classes[name] ?? whole);
  try {
    return new RegExp(translated, 'g');
  } catch (error) {
    throw new WdlRuntimeError(`sub() is given an invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
}

export const STRING_FUNCTIONS: readonly Entry[] = [
  [
    'sub',
    {
      arity: [3, 3],
      fn: ([input, pattern, replace]) => {
        // `$` in the replacement is literal in WDL; JavaScript would read $1, $&.
        const replacement = textArg(replace, 'sub').replace(/\$/g, '$$$$');
        return str(textArg(input, 'sub').replace(posixRegex(textArg(pattern, 'sub')), replacement));
      },
    },
  ],
  [
    'basename',
    {
      arity: [1, 2],
      fn: ([path, suffix]) => {
        const base = textArg(path, 'basename').replace(/\/+$/, '').split('/').pop() ?? '';
        const cut = suffix ? textArg(suffix, 'basename') : '';
        return str(cut !== '' && base.endsWith(cut) ? base.slice(0, base.length - cut.length) : base);
      },
    },
  ],
  ['prefix', { arity: [2, 2], fn: ([p, a]) => array(strings(a, 'prefix').map((s) => str(textArg(p, 'prefix') + s))) }],
  ['suffix', { arity: [2, 2], fn: ([p, a]) => array(strings(a, 'suffix').map((s) => str(s + textArg(p, 'suffix')))) }],
  ['quote', { arity: [1, 1], fn: ([a]) => array(strings(a, 'quote').map((s) => str(`"${s}"`))) }],
  ['squote', { arity: [1, 1], fn: ([a]) => array(strings(a, 'squote').map((s) => str(`'${s}'`))) }],
  ['sep', { arity: [2, 2], fn: ([s, a]) => str(strings(a, 'sep').join(textArg(s, 'sep'))) }],
];
