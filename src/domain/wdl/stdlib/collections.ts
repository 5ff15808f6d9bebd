import { WdlRuntimeError } from '../errors.js';
import { array, bool, equal, int, type WdlValue } from '../values.js';
import type { FunctionEntry as Entry } from './types.js';
import { arrayArg, intArg } from './util.js';

const pair = (left: WdlValue, right: WdlValue): WdlValue => ({ t: 'Pair', left, right });

function mapArg(value: WdlValue | undefined, fn: string): readonly (readonly [WdlValue, WdlValue])[] {
  if (value?.t === 'Map') return value.entries;
  if (value?.t === 'Object' || value?.t === 'Struct') return Object.entries(value.members).map(([k, v]) => [{ t: 'String', v: k }, v] as const);
  throw new WdlRuntimeError(`${fn}() needs a Map, not a ${value?.t ?? 'nothing'}`);
}

function pairArg(value: WdlValue, fn: string): { left: WdlValue; right: WdlValue } {
  if (value.t === 'Pair') return value;
  throw new WdlRuntimeError(`${fn}() needs an Array of Pairs, not of ${value.t}`);
}

function sameLength(a: readonly WdlValue[], b: readonly WdlValue[], fn: string): void {
  if (a.length !== b.length) throw new WdlRuntimeError(`${fn}() needs arrays of the same length, not ${a.length} and ${b.length}`);
}

/** A map without two entries of the same key: as_map refuses them. */
function uniqueKeys(entries: readonly (readonly [WdlValue, WdlValue])[], fn: string): void {
  entries.forEach(([key], i) => {
    if (entries.findIndex(([other]) => equal(other, key)) !== i) throw new WdlRuntimeError(`${fn}() is given the key ${JSON.stringify(key)} twice`);
  });
}

export const COLLECTION_FUNCTIONS: readonly Entry[] = [
  ['length', { arity: [1, 1], fn: ([x]) => int(x?.t === 'Map' ? x.entries.length : x?.t === 'String' ? x.v.length : arrayArg(x, 'length').length) }],
  ['defined', { arity: [1, 1], fn: ([x]) => bool(x!.t !== 'None') }],
  [
    'select_first',
    {
      arity: [1, 2],
      fn: ([x, fallback]) => {
        const found = arrayArg(x, 'select_first').find((item) => item.t !== 'None');
        if (found) return found;
        if (fallback && fallback.t !== 'None') return fallback;
        throw new WdlRuntimeError('select_first() is given no defined value');
      },
    },
  ],
  ['select_all', { arity: [1, 1], fn: ([x]) => array(arrayArg(x, 'select_all').filter((item) => item.t !== 'None')) }],
  ['flatten', { arity: [1, 1], fn: ([x]) => array(arrayArg(x, 'flatten').flatMap((item) => arrayArg(item, 'flatten'))) }],
  [
    'range',
    {
      arity: [1, 1],
      fn: ([n]) => {
        const count = intArg(n, 'range');
        if (count < 0) throw new WdlRuntimeError(`range() needs a number that is not negative, not ${count}`);
        return array(Array.from({ length: count }, (_, i) => int(i)));
      },
    },
  ],
  [
    'zip',
    {
      arity: [2, 2],
      fn: ([a, b]) => {
        const left = arrayArg(a, 'zip');
        const right = arrayArg(b, 'zip');
        sameLength(left, right, 'zip');
        return array(left.map((item, i) => pair(item, right[i]!)));
      },
    },
  ],
  ['cross', { arity: [2, 2], fn: ([a, b]) => array(arrayArg(a, 'cross').flatMap((x) => arrayArg(b, 'cross').map((y) => pair(x, y)))) }],
  [
    'unzip',
    {
      arity: [1, 1],
      fn: ([a]) => {
        const pairs = arrayArg(a, 'unzip').map((p) => pairArg(p, 'unzip'));
        return pair(array(pairs.map((p) => p.left)), array(pairs.map((p) => p.right)));
      },
    },
  ],
  [
    'transpose',
    {
      arity: [1, 1],
      fn: ([a]) => {
        const rows = arrayArg(a, 'transpose').map((row) => arrayArg(row, 'transpose'));
        const width = rows[0]?.length ?? 0;
        if (rows.some((row) => row.length !== width)) throw new WdlRuntimeError('transpose() needs rows of the same length');
        return array(Array.from({ length: width }, (_, j) => array(rows.map((row) => row[j]!))));
      },
    },
  ],
  [
    'as_map',
    {
      arity: [1, 1],
      fn: ([a]) => {
        const entries = arrayArg(a, 'as_map').map((p) => {
          const { left, right } = pairArg(p, 'as_map');
          return [left, right] as const;
        });
        uniqueKeys(entries, 'as_map');
        return { t: 'Map', entries };
      },
    },
  ],
  ['as_pairs', { arity: [1, 1], fn: ([m]) => array(mapArg(m, 'as_pairs').map(([k, v]) => pair(k, v))) }],
  ['keys', { arity: [1, 1], fn: ([m]) => array(mapArg(m, 'keys').map(([k]) => k)) }],
  ['values', { arity: [1, 1], fn: ([m]) => array(mapArg(m, 'values').map(([, v]) => v)) }],
  ['contains_key', { arity: [2, 2], fn: ([m, key]) => bool(mapArg(m, 'contains_key').some(([k]) => equal(k, key!))) }],
  ['contains', { arity: [2, 2], fn: ([a, x]) => bool(arrayArg(a, 'contains').some((item) => equal(item, x!))) }],
  [
    'collect_by_key',
    {
      arity: [1, 1],
      fn: ([a]) => {
        const groups: [WdlValue, WdlValue[]][] = [];
        for (const p of arrayArg(a, 'collect_by_key')) {
          const { left, right } = pairArg(p, 'collect_by_key');
          const group = groups.find(([k]) => equal(k, left));
          if (group) group[1].push(right);
          else groups.push([left, [right]]);
        }
        return { t: 'Map', entries: groups.map(([k, items]) => [k, array(items)] as const) };
      },
    },
  ],
];
