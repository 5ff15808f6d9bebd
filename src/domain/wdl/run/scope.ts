import type { Decl } from '../ast.js';
import { WdlRuntimeError } from '../errors.js';
import { evaluate, type Scope } from '../eval.js';
import { NO_FILES, type WdlFiles } from '../files.js';
import type { StructTable } from '../types.js';
import { coerce, fromJson, NONE, type WdlValue } from '../values.js';
import { exprNames } from './names.js';
import type { Bindings, WdlJobOutputs } from './payload.js';

/** The names bound to values or to ended jobs' outputs, as an expression scope. */
export function bindingScope(
  bindings: Bindings,
  outputsOf: (key: string) => WdlJobOutputs | undefined,
  structs: StructTable,
  files: WdlFiles = NO_FILES,
  extra: ReadonlyMap<string, WdlValue> = new Map(),
): Scope {
  return {
    structs,
    files,
    lookup: (name) => {
      const local = extra.get(name);
      if (local) return local;
      const binding = bindings[name];
      if (!binding) return undefined;
      if ('value' in binding) return binding.value;
      const outputs = outputsOf(binding.key);
      const value = outputs?.[name];
      // A skipped job (an if's condition was false) has outputs of None for its names.
      return value ?? NONE;
    },
  };
}

/**
 * Declarations evaluated in the order their values need (spec: a declaration may use one declared after it), each
 * value coerced to its type. `given`: values set from outside (a call's inputs, the inputs JSON), which win over the
 * declaration's own expression; `json`: values of the inputs JSON by name, read with the declaration's type.
 */
export function evaluateDecls(
  decls: readonly Decl[],
  scope: Scope,
  given: ReadonlyMap<string, WdlValue>,
  json: (name: string) => unknown,
  what: string,
): Map<string, WdlValue> {
  const values = new Map<string, WdlValue>();
  const pending = new Map(decls.map((d) => [d.name, d]));
  const inner: Scope = { ...scope, lookup: (name) => values.get(name) ?? (pending.has(name) ? undefined : scope.lookup(name)) };
  while (pending.size > 0) {
    let progressed = false;
    for (const decl of [...pending.values()]) {
      const waits = decl.expr && !given.has(decl.name) ? [...exprNames(decl.expr)].some((n) => pending.has(n) && n !== decl.name) : false;
      if (waits) continue;
      values.set(decl.name, valueOf(decl, inner, given, json, what));
      pending.delete(decl.name);
      progressed = true;
    }
    if (!progressed) {
      const decl = [...pending.values()][0]!;
      throw new WdlRuntimeError(`the declarations ${[...pending.keys()].join(', ')} depend on each other`, decl.pos);
    }
  }
  return values;
}

function valueOf(decl: Decl, scope: Scope, given: ReadonlyMap<string, WdlValue>, json: (name: string) => unknown, what: string): WdlValue {
  const where = `${what}.${decl.name}`;
  const set = given.get(decl.name);
  if (set !== undefined) return coerceAt(set, decl, scope, where);
  const fromInputs = json(decl.name);
  if (fromInputs !== undefined) return fromJson(fromInputs, decl.type, scope.structs, where);
  if (decl.expr) return coerceAt(evaluate(decl.expr, scope), decl, scope, where);
  if (decl.type.optional) return NONE;
  throw new WdlRuntimeError(`input '${where}' is required and was not given`, decl.pos);
}

function coerceAt(value: WdlValue, decl: Decl, scope: Scope, where: string): WdlValue {
  try {
    return coerce(value, decl.type, scope.structs);
  } catch (error) {
    throw new WdlRuntimeError(`${where}: ${(error as Error).message}`, decl.pos);
  }
}
