import type { StringPart, Task } from '../ast.js';
import { WdlRuntimeError } from '../errors.js';
import type { Scope } from '../eval.js';
import type { WdlFiles } from '../files.js';
import type { StructTable } from '../types.js';
import { NONE, type WdlValue } from '../values.js';
import { readRuntime, type TaskRuntime } from './runtime.js';
import { evaluateDecls } from './scope.js';
import { renderCommand } from './shell.js';

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
  /** The value of an input of the inputs JSON (`<prefix>.<name>`; `runtime.<key>`: a runtime attribute it sets). */
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
  const runtime = readRuntime(
    task,
    scope,
    (key) => how.json(`runtime.${key}`),
    (key) => `the inputs JSON's ${how.prefix}.runtime.${key}`,
  );
  const command = renderCommand(how.command ?? task.command, scope);
  return { command, runtime, values: Object.fromEntries(values) };
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
