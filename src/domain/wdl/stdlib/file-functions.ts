import { WdlRuntimeError } from '../errors.js';
import { array, bool, float, guess, int, str, stringOf, toJson, type WdlValue } from '../values.js';
import type { FunctionContext, FunctionEntry as Entry } from './types.js';
import { arrayArg, textArg } from './util.js';

const file = (v: string): WdlValue => ({ t: 'File', v });

/** A file's lines, without the newline that ends the last one. */
function lines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\r?\n$/, '').split(/\r?\n/);
}

const reader = (name: string, read: (text: string, context: FunctionContext) => WdlValue): Entry => [
  name,
  { arity: [1, 1], fn: ([path], context) => read(context.files.read(textArg(path, name)), context) },
];

function readScalar(name: string, text: string, parse: (t: string) => WdlValue | undefined): WdlValue {
  const value = parse(text.trim());
  if (value === undefined) throw new WdlRuntimeError(`${name}() cannot read ${JSON.stringify(text.slice(0, 40))}`);
  return value;
}

const tsv = (text: string): string[][] => lines(text).map((line) => line.split('\t'));

function writer(name: string, render: (value: WdlValue) => string): Entry {
  return [name, { arity: [1, 1], fn: ([value], context) => file(context.files.write(name, render(value!))) }];
}

function objectsTsv(items: readonly WdlValue[], name: string): string {
  if (items.length === 0) return '';
  const keys = Object.keys(membersOf(items[0]!, name));
  const rows = items.map((item) => keys.map((k) => stringOf(membersOf(item, name)[k] ?? { t: 'None' })).join('\t'));
  return `${keys.join('\t')}\n${rows.join('\n')}\n`;
}

function membersOf(value: WdlValue, name: string): { readonly [k: string]: WdlValue } {
  if (value.t === 'Object' || value.t === 'Struct') return value.members;
  throw new WdlRuntimeError(`${name}() needs Objects, not a ${value.t}`);
}

function readObjects(text: string, name: string): WdlValue[] {
  const rows = tsv(text);
  const [header, ...body] = rows;
  if (!header) throw new WdlRuntimeError(`${name}() needs a header line`);
  return body.map((row) => {
    if (row.length !== header.length) throw new WdlRuntimeError(`${name}(): a line has ${row.length} fields, its header ${header.length}`);
    return { t: 'Object', members: Object.fromEntries(header.map((key, i) => [key, str(row[i]!)])) };
  });
}

export const FILE_FUNCTIONS: readonly Entry[] = [
  ['stdout', { arity: [0, 0], fn: (_, { files }) => file(files.stdout ?? failWith('stdout() is only available in a task output section')) }],
  ['stderr', { arity: [0, 0], fn: (_, { files }) => file(files.stderr ?? failWith('stderr() is only available in a task output section')) }],
  ['glob', { arity: [1, 1], fn: ([pattern], { files }) => array(files.glob(textArg(pattern, 'glob')).map(file)) }],
  [
    'size',
    {
      arity: [1, 2],
      fn: ([value, unit], { files }) => {
        const bytes = sizeOf(value!, (path) => files.size(path));
        return float(bytes / unitFactor(unit ? textArg(unit, 'size') : 'B'));
      },
    },
  ],
  reader('read_string', (text) => str(text.replace(/\r?\n$/, ''))),
  reader('read_lines', (text) => array(lines(text).map(str))),
  reader('read_int', (text) => readScalar('read_int', text, (t) => (/^[+-]?\d+$/.test(t) ? int(Number(t)) : undefined))),
  reader('read_float', (text) => readScalar('read_float', text, (t) => (t !== '' && !Number.isNaN(Number(t)) ? float(Number(t)) : undefined))),
  reader('read_boolean', (text) => readScalar('read_boolean', text, (t) => (/^true$/i.test(t) ? bool(true) : /^false$/i.test(t) ? bool(false) : undefined))),
  reader('read_tsv', (text) => array(tsv(text).map((row) => array(row.map(str))))),
  reader('read_map', (text) => ({
    t: 'Map',
    entries: tsv(text).map((row) => {
      if (row.length !== 2) throw new WdlRuntimeError(`read_map() needs two fields a line, not ${row.length}`);
      return [str(row[0]!), str(row[1]!)] as const;
    }),
  })),
  reader('read_json', (text) => {
    try {
      return guess(JSON.parse(text));
    } catch (error) {
      throw new WdlRuntimeError(`read_json(): ${(error as Error).message}`);
    }
  }),
  reader('read_object', (text) => {
    const objects = readObjects(text, 'read_object');
    if (objects.length !== 1) throw new WdlRuntimeError(`read_object() needs one line of values, not ${objects.length}`);
    return objects[0]!;
  }),
  reader('read_objects', (text) => array(readObjects(text, 'read_objects'))),
  writer('write_lines', (value) =>
    arrayArg(value, 'write_lines')
      .map((item) => `${stringOf(item)}\n`)
      .join(''),
  ),
  writer('write_tsv', (value) =>
    arrayArg(value, 'write_tsv')
      .map((row) => `${arrayArg(row, 'write_tsv').map(stringOf).join('\t')}\n`)
      .join(''),
  ),
  writer('write_map', (value) =>
    value.t === 'Map' ? value.entries.map(([k, v]) => `${stringOf(k)}\t${stringOf(v)}\n`).join('') : failWith('write_map() needs a Map'),
  ),
  writer('write_json', (value) => JSON.stringify(toJson(jsonWritable(value)))),
  writer('write_object', (value) => objectsTsv([value], 'write_object')),
  writer('write_objects', (value) => objectsTsv(arrayArg(value, 'write_objects'), 'write_objects')),
];

/** The value, when JSON can hold it (spec "write_json": a Map's keys must be Strings, as a JSON object's are). */
function jsonWritable(value: WdlValue): WdlValue {
  const visit = (v: WdlValue): void => {
    if (v.t === 'Map') {
      for (const [key, item] of v.entries) {
        if (key.t !== 'String') failWith(`write_json(): a Map with ${key.t} keys cannot be written as JSON (its keys must be Strings)`);
        visit(item);
      }
    } else if (v.t === 'Array') v.items.forEach(visit);
    else if (v.t === 'Pair') [v.left, v.right].forEach(visit);
    else if (v.t === 'Object' || v.t === 'Struct') Object.values(v.members).forEach(visit);
  };
  visit(value);
  return value;
}

function failWith(message: string): never {
  throw new WdlRuntimeError(message);
}

/** The bytes of a File, of an optional (0 when undefined), or of every File in a compound value. */
function sizeOf(value: WdlValue, size: (path: string) => number): number {
  switch (value.t) {
    case 'None':
      return 0;
    case 'File':
    case 'Directory':
    case 'String':
      return size(value.v);
    case 'Array':
      return value.items.reduce((sum, item) => sum + sizeOf(item, size), 0);
    case 'Pair':
      return sizeOf(value.left, size) + sizeOf(value.right, size);
    case 'Map':
      return value.entries.reduce((sum, [k, v]) => sum + sizeOf(k, size) + sizeOf(v, size), 0);
    case 'Object':
    case 'Struct':
      return Object.values(value.members).reduce((sum, item) => sum + sizeOf(item, size), 0);
    default:
      return 0;
  }
}

const UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  K: 1e3,
  MB: 1e6,
  M: 1e6,
  GB: 1e9,
  G: 1e9,
  TB: 1e12,
  T: 1e12,
  KIB: 1024,
  KI: 1024,
  MIB: 1024 ** 2,
  MI: 1024 ** 2,
  GIB: 1024 ** 3,
  GI: 1024 ** 3,
  TIB: 1024 ** 4,
  TI: 1024 ** 4,
};

/** The bytes of a unit (spec "Units of Storage"): B, KB/K, MB/M... decimal, KiB/Ki... binary. */
export function unitFactor(unit: string): number {
  const factor = UNITS[unit.toUpperCase()];
  if (factor === undefined) throw new WdlRuntimeError(`'${unit}' is not a unit of storage`);
  return factor;
}
