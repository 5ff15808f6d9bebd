import type { Call, Decl, Expr, Task, Workflow, WorkflowElement } from '../ast.js';
import { WdlError, type Pos } from '../errors.js';
import { findCallee, type Callee, type LoadedDocument } from '../load.js';
import { ANY, arrayOf, coercible, prim, typeText, withOptional, type StructTable, type WdlType } from '../types.js';
import { checkDisks } from '../run/disks.js';
import { checkCycles } from './cycles.js';
import { typeOf, type CheckScope, type NameType } from './expressions.js';

/**
 * Type checks (spec "Type Coercion", "Workflow Definition"): every name declared once and declared where it is used,
 * every declaration's value coercible to its type, every call's callee and inputs known and of the right types.
 */
export function checkDocument(document: LoadedDocument, structs: StructTable, seen = new Set<LoadedDocument>()): void {
  if (seen.has(document)) return;
  seen.add(document);
  for (const child of document.namespaces.values()) checkDocument(child, structs, seen);
  const names = new Set<string>();
  for (const task of document.doc.tasks) {
    unique(names, task.name, task.pos, 'task or workflow');
    checkTask(task, structs);
  }
  const workflow = document.doc.workflow;
  if (workflow) {
    unique(names, workflow.name, workflow.pos, 'task or workflow');
    checkWorkflow(workflow, document, structs);
  }
}

function unique(names: Set<string>, name: string, pos: Pos, what: string): void {
  if (names.has(name)) throw new WdlError(pos, `there is already a ${what} named '${name}'`);
  names.add(name);
}

const scopeOf = (names: ReadonlyMap<string, NameType>, structs: StructTable, parent?: CheckScope): CheckScope => ({
  lookup: (name) => names.get(name) ?? parent?.lookup(name),
  structs,
});

/**
 * The type of a value given to a declaration or call input: its expression's, except that the Array[String] of
 * read_lines() may be taken as an Array of another primitive type (spec "Type Coercion": "may be immediately coerced
 * into other Array[P] values"); its lines are parsed when known.
 */
function givenType(expr: Expr, scope: CheckScope): WdlType {
  const type = typeOf(expr, scope);
  return expr.kind === 'call' && expr.name === 'read_lines' ? arrayOf(ANY) : type;
}

function checkDecl(decl: Decl, scope: CheckScope): void {
  checkType(decl.type, decl.pos, scope.structs);
  if (!decl.expr) return;
  const type = givenType(decl.expr, scope);
  // T? given where T is declared is checked when the value is known (spec: an undefined value there is an error).
  if (!coercible(withOptional(type, false), withOptional(decl.type, true), scope.structs)) {
    throw new WdlError(decl.expr.pos, `'${decl.name}' is declared ${typeText(decl.type)}, but its value is ${typeText(type)}`);
  }
}

function checkType(type: WdlType, pos: Pos, structs: StructTable): void {
  if (type.kind === 'Struct' && !structs.has(type.name)) throw new WdlError(pos, `type '${type.name}' is not defined`);
  if (type.kind === 'Array') checkType(type.item, pos, structs);
  if (type.kind === 'Map') [type.key, type.value].forEach((t) => checkType(t, pos, structs));
  if (type.kind === 'Pair') [type.left, type.right].forEach((t) => checkType(t, pos, structs));
}

function checkTask(task: Task, structs: StructTable): void {
  const names = new Map<string, NameType>();
  const seen = new Set<string>();
  for (const decl of [...task.inputs, ...task.privates, ...task.outputs]) {
    unique(seen, decl.name, decl.pos, 'declaration');
    names.set(decl.name, decl.type);
  }
  // Outputs see every input and private declaration; inputs and private declarations do not see outputs.
  const inner = new Map([...names].filter(([name]) => !task.outputs.some((o) => o.name === name)));
  const scope = scopeOf(inner, structs);
  for (const decl of [...task.inputs, ...task.privates]) checkDecl(decl, scope);
  for (const part of task.command) if (typeof part !== 'string') typeOf(part.expr, scope);
  for (const [key, expr] of task.runtime) {
    const type = typeOf(expr, scope);
    if (key === 'disks') checkDisks(expr, type, structs);
  }
  const outputScope = scopeOf(names, structs);
  for (const decl of task.outputs) checkDecl(decl, outputScope);
}

/** The outputs of a task or workflow a call names, as the call's members. */
export function calleeOutputs(callee: Callee, structs: StructTable): Map<string, WdlType> {
  if (callee.kind === 'task') return new Map(callee.task.outputs.map((o) => [o.name, o.type]));
  if (callee.workflow.outputs) return new Map(callee.workflow.outputs.map((o) => [o.name, o.type]));
  void structs;
  return new Map();
}

/** The inputs of a task or workflow a call names. */
export const calleeInputs = (callee: Callee): readonly Decl[] => (callee.kind === 'task' ? callee.task.inputs : callee.workflow.inputs);

/** A name of a body as seen from outside a scatter (an Array of it) or a conditional (an optional). */
function wrap(type: NameType, how: 'scatter' | 'if'): NameType {
  const one = (t: WdlType): WdlType => (how === 'scatter' ? arrayOf(t) : withOptional(t, true));
  if (type.kind === 'Call') return { kind: 'Call', outputs: new Map([...type.outputs].map(([k, t]) => [k, one(t)])) };
  return one(type);
}

/** The names a body declares, as its enclosing body sees them. */
export function bodyNames(body: readonly WorkflowElement[], document: LoadedDocument, structs: StructTable): Map<string, NameType> {
  const names = new Map<string, NameType>();
  const add = (name: string, type: NameType, pos: Pos) => {
    if (names.has(name)) throw new WdlError(pos, `'${name}' is declared twice in this workflow`);
    names.set(name, type);
  };
  for (const element of body) {
    if (element.kind === 'decl') add(element.name, element.type, element.pos);
    else if (element.kind === 'call') {
      const callee = findCallee(document, element.callee);
      if (!callee) throw new WdlError(element.pos, `no task or workflow '${element.callee}' to call`);
      add(element.alias, { kind: 'Call', outputs: calleeOutputs(callee, structs) }, element.pos);
    } else {
      for (const [name, type] of bodyNames(element.body, document, structs)) add(name, wrap(type, element.kind), element.pos);
    }
  }
  return names;
}

function checkWorkflow(workflow: Workflow, document: LoadedDocument, structs: StructTable): void {
  const names = new Map<string, NameType>();
  for (const decl of workflow.inputs) {
    if (names.has(decl.name)) throw new WdlError(decl.pos, `'${decl.name}' is declared twice in this workflow`);
    names.set(decl.name, decl.type);
  }
  for (const [name, type] of bodyNames(workflow.body, document, structs)) {
    if (names.has(name)) throw new WdlError(workflow.pos, `'${name}' is declared twice in workflow ${workflow.name}`);
    names.set(name, type);
  }
  const scope = scopeOf(names, structs);
  for (const decl of workflow.inputs) checkDecl(decl, scope);
  checkBody(workflow.body, scope, document, structs);
  checkCycles(workflow);
  // Outputs see each other, as a task's do (spec "Workflow Outputs": the two sections have identical semantics).
  const outputs = new Map<string, NameType>();
  for (const decl of workflow.outputs ?? []) {
    if (outputs.has(decl.name)) throw new WdlError(decl.pos, `output '${decl.name}' is declared twice`);
    outputs.set(decl.name, decl.type);
  }
  const outputScope = scopeOf(outputs, structs, scope);
  for (const decl of workflow.outputs ?? []) checkDecl(decl, outputScope);
}

function checkBody(body: readonly WorkflowElement[], scope: CheckScope, document: LoadedDocument, structs: StructTable): void {
  for (const element of body) {
    if (element.kind === 'decl') checkDecl(element, scope);
    else if (element.kind === 'call') checkCall(element, scope, document, structs);
    else {
      const inner = bodyNames(element.body, document, structs);
      if (element.kind === 'scatter') {
        const type = typeOf(element.expr, scope);
        if (type.kind !== 'Array' && type.kind !== 'Any') throw new WdlError(element.expr.pos, `scatter needs an Array, not ${typeText(type)}`);
        inner.set(element.variable, type.kind === 'Array' ? type.item : type);
      } else {
        const type = typeOf(element.expr, scope);
        if (type.kind !== 'Boolean' && type.kind !== 'Any') throw new WdlError(element.expr.pos, `'if' needs a Boolean, not ${typeText(type)}`);
      }
      checkBody(element.body, scopeOf(inner, structs, scope), document, structs);
    }
  }
}

function checkCall(call: Call, scope: CheckScope, document: LoadedDocument, structs: StructTable): void {
  const callee = findCallee(document, call.callee)!;
  const inputs = calleeInputs(callee);
  for (const [name, expr] of call.inputs) {
    const input = inputs.find((d) => d.name === name);
    if (!input) throw new WdlError(expr.pos, `'${call.callee}' has no input '${name}'`);
    const type = givenType(expr, scope);
    if (!coercible(withOptional(type, false), withOptional(input.type, true), structs)) {
      throw new WdlError(expr.pos, `input '${name}' of '${call.callee}' is ${typeText(input.type)}, not ${typeText(type)}`);
    }
  }
  for (const after of call.after) {
    const target = scope.lookup(after);
    if (target?.kind !== 'Call') throw new WdlError(call.pos, `'after ${after}' names no call`);
  }
  void prim;
}
