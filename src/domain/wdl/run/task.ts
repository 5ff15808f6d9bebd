import type { StringPart, Task } from '../ast.js';
import { WdlRuntimeError, type Pos } from '../errors.js';
import { evaluate, type Scope } from '../eval.js';
import type { WdlFiles } from '../files.js';
import { unitFactor } from '../stdlib/file-functions.js';
import type { StructTable } from '../types.js';
import { NONE, type WdlValue } from '../values.js';
import { diskMbOf, DisksError, readDisks } from './disks.js';
import { evaluateDecls } from './scope.js';
import { renderCommand } from './shell.js';

/** What a task's runtime (or 1.1 requirements) section asks for (spec "Runtime Section"). */
export interface TaskRuntime {
  /** The container image; empty: none. */
  readonly image: string;
  readonly cpu: number;
  /** MiB; 0: not asked. */
  readonly memMb: number;
  readonly maxRetries: number;
  /** The exit codes that are a success: `*` for any. */
  readonly returnCodes: readonly number[] | '*';
  readonly gpu: boolean;
  /** What `disks` asks for (run/disks.ts), and where the document says it; absent: nothing. */
  readonly disks?: { readonly mb: number; readonly mountPoints: readonly string[]; readonly pos: Pos };
}

/** A task call ready to run: its command, its runtime, and the values its outputs are evaluated with. */
export interface PreparedTask {
  readonly command: string;
  readonly runtime: TaskRuntime;
  /** The inputs' and private declarations' values, as the command sees them. */
  readonly values: { readonly [name: string]: WdlValue };
}

export interface TaskPreparation {
  readonly structs: StructTable;
  /** The files read and written while the command is prepared (write_lines in a placeholder...). */
  readonly files: WdlFiles;
  /** The value of an input of the inputs JSON (`<prefix>.<name>`). */
  readonly json: (name: string) => unknown;
  readonly prefix: string;
  /** An input value as the command sees it: its File and Directory paths where they are staged. */
  readonly stage: (value: WdlValue) => WdlValue;
  /** A command section to run instead of the task's own (a restart's, run/restart.ts). */
  readonly command?: readonly StringPart[];
}

const scopeOf = (values: ReadonlyMap<string, WdlValue>, structs: StructTable, files: WdlFiles): Scope => ({
  lookup: (name) => values.get(name),
  structs,
  files,
});

/** A task's inputs, private declarations, runtime and command, evaluated (spec "Task Definition"). */
export function prepareTask(task: Task, given: ReadonlyMap<string, WdlValue>, how: TaskPreparation): PreparedTask {
  const empty = scopeOf(new Map(), how.structs, how.files);
  const raw = evaluateDecls(task.inputs, empty, given, how.json, how.prefix);
  const inputs = new Map([...raw].map(([name, value]) => [name, how.stage(value)]));
  const privates = evaluateDecls(task.privates, scopeOf(inputs, how.structs, how.files), new Map(), () => undefined, how.prefix);
  const values = new Map([...inputs, ...privates]);
  const scope = scopeOf(values, how.structs, how.files);
  const runtime = readRuntime(task, scope);
  const command = renderCommand(how.command ?? task.command, scope);
  return { command, runtime, values: Object.fromEntries(values) };
}

function readRuntime(task: Task, scope: Scope): TaskRuntime {
  const value = (key: string): WdlValue | undefined => {
    const expr = task.runtime.get(key);
    return expr ? evaluate(expr, scope) : undefined;
  };
  const fail = (key: string, what: string): never => {
    throw new WdlRuntimeError(`runtime ${key}: ${what}`, task.runtime.get(key)?.pos ?? task.pos);
  };
  const image = value('container') ?? value('docker');
  let imageName = '';
  if (image?.t === 'String') imageName = image.v;
  else if (image?.t === 'Array') imageName = image.items.map((item) => ('v' in item ? String(item.v) : '')).find((name) => name !== '' && name !== '*') ?? '';
  else if (image !== undefined && image.t !== 'None') fail('container', `a String or an Array of String, not a ${image.t}`);
  const cpuValue = value('cpu');
  let cpu = 1;
  if (cpuValue && (cpuValue.t === 'Int' || cpuValue.t === 'Float')) cpu = Math.max(1, Math.ceil(cpuValue.v));
  else if (cpuValue?.t === 'String' && /^\d+(\.\d+)?$/.test(cpuValue.v.trim())) cpu = Math.max(1, Math.ceil(Number(cpuValue.v)));
  else if (cpuValue !== undefined) fail('cpu', `a number, not ${JSON.stringify('v' in cpuValue ? cpuValue.v : cpuValue.t)}`);
  const memory = value('memory');
  let memMb = 0;
  if (memory?.t === 'Int') memMb = Math.ceil(memory.v / 2 ** 20);
  else if (memory?.t === 'String')
    memMb = Math.ceil(sizeBytes(memory.v, () => fail('memory', `'${memory.v}' is not an amount of memory such as "4 GiB"`)) / 2 ** 20);
  else if (memory !== undefined) fail('memory', `an Int of bytes or a String such as "4 GiB", not a ${memory.t}`);
  const retries = value('maxRetries') ?? value('max_retries');
  const maxRetries = retries?.t === 'Int' ? Math.max(0, retries.v) : 0;
  const gpu = value('gpu');
  const disks = readTaskDisks(value('disks'), fail, task.runtime.get('disks')?.pos ?? task.pos);
  return {
    image: imageName,
    cpu,
    memMb,
    maxRetries,
    returnCodes: returnCodes(value('returnCodes') ?? value('return_codes'), fail),
    gpu: gpu?.t === 'Boolean' && gpu.v,
    ...(disks ? { disks } : {}),
  };
}

function readTaskDisks(value: WdlValue | undefined, fail: (key: string, what: string) => never, pos: Pos): TaskRuntime['disks'] {
  if (value === undefined) return undefined;
  try {
    const request = readDisks(value);
    const mb = diskMbOf(request);
    if (!request || (mb === undefined && request.mountPoints.length === 0)) return undefined;
    return { mb: mb ?? 0, mountPoints: request.mountPoints, pos };
  } catch (error) {
    if (error instanceof DisksError) return fail('disks', error.message);
    throw error;
  }
}

function returnCodes(value: WdlValue | undefined, fail: (key: string, what: string) => never): readonly number[] | '*' {
  if (value === undefined || value.t === 'None') return [0];
  if (value.t === 'String' && value.v === '*') return '*';
  if (value.t === 'Int') return [value.v];
  if (value.t === 'Array' && value.items.every((item) => item.t === 'Int')) return value.items.map((item) => (item as { v: number }).v);
  return fail('returnCodes', 'an Int, an Array[Int] or "*"');
}

/** Bytes of "4 GiB", "512 MB", "2G". */
export function sizeBytes(text: string, fail: () => never): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(text);
  if (!match) return fail();
  try {
    return Number(match[1]) * unitFactor(match[2] === '' ? 'B' : match[2]!);
  } catch {
    return fail();
  }
}

/**
 * A task's outputs, from its finished working directory (spec "Task Outputs"), as the call's: `{alias: Object}` (the
 * run's own task: `{"task.out": value}`). A File output names a file that must exist; an optional one that does not
 * is None.
 */
export function collectTaskOutputs(
  task: Task,
  values: { readonly [name: string]: WdlValue },
  structs: StructTable,
  files: WdlFiles,
  prefix: string,
  alias?: string,
) {
  const scope = scopeOf(new Map(Object.entries(values)), structs, files);
  const outputs = evaluateDecls(task.outputs, scope, new Map(), () => undefined, prefix);
  const located = new Map([...outputs].map(([name, value]) => [name, locate(value, files, name, task.outputs.find((d) => d.name === name)!.type.optional)]));
  if (alias === undefined) return Object.fromEntries([...located].map(([name, value]) => [`${task.name}.${name}`, value]));
  return { [alias]: { t: 'Object', members: Object.fromEntries(located) } as WdlValue };
}

function locate(value: WdlValue, files: WdlFiles, name: string, optional: boolean): WdlValue {
  if (!files.locate) return value;
  const at = files.locate.bind(files);
  const visit = (v: WdlValue, canBeNone: boolean): WdlValue => {
    switch (v.t) {
      case 'File':
      case 'Directory': {
        const path = at(v.v, v.t);
        if (path !== undefined) return { t: v.t, v: path };
        if (canBeNone) return NONE;
        throw new WdlRuntimeError(`output '${name}': the ${v.t === 'File' ? 'file' : 'directory'} ${v.v} does not exist`);
      }
      case 'Array':
        return { t: 'Array', items: v.items.map((item) => visit(item, false)) };
      case 'Pair':
        return { t: 'Pair', left: visit(v.left, false), right: visit(v.right, false) };
      case 'Map':
        return { t: 'Map', entries: v.entries.map(([k, x]) => [k, visit(x, false)] as const) };
      case 'Object':
      case 'Struct':
        return { ...v, members: Object.fromEntries(Object.entries(v.members).map(([k, x]) => [k, visit(x, false)])) };
      default:
        return v;
    }
  };
  return visit(value, optional);
}
