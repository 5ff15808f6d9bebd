import type { Task, Workflow, WorkflowElement } from '../ast.js';
import { calleeOutputs } from '../check/document.js';
import { WdlRuntimeError } from '../errors.js';
import { evaluate } from '../eval.js';
import type { WdlFiles } from '../files.js';
import { targetOf, type WdlBundle } from '../index.js';
import { findCallee, type LoadedDocument } from '../load.js';
import { coerce, NONE, type WdlValue } from '../values.js';
import { elementAt } from './locate.js';
import { declaredNames, elementName, exprNames, freeNames } from './names.js';
import type { Binding, Bindings, WdlGatherPayload, WdlJobOutputs, WdlJobPayload } from './payload.js';
import { bindingScope, evaluateDecls } from './scope.js';

/** What a WDL run's jobs are resolved with. */
export interface WdlRunContext {
  readonly bundle: WdlBundle;
  readonly docs: ReadonlyMap<string, LoadedDocument>;
  /** The run's inputs JSON (`wf.x`, `wf.call.y`), File values as the engine's paths. */
  readonly inputs: { readonly [name: string]: unknown };
  /** The task of the main document to run instead of its workflow. */
  readonly target?: string;
  readonly outputsOf: (key: string) => WdlJobOutputs | undefined;
  /**
   * The files a workflow's own expressions read and write (read_lines(f), size(f), write_lines(xs) in a declaration, a
   * scatter's collection, an output): the engine's, over the run's host paths. Absent: they cannot (NO_FILES).
   */
  readonly files?: WdlFiles;
}

export interface NewWdlJob {
  readonly key: string;
  readonly name: string;
  readonly deps: readonly string[];
  readonly payload: WdlJobPayload;
}

export type WdlResolution =
  | { readonly kind: 'value'; readonly outputs: WdlJobOutputs }
  | { readonly kind: 'skip'; readonly outputs: WdlJobOutputs }
  | { readonly kind: 'expand'; readonly jobs: readonly NewWdlJob[]; readonly gather: WdlGatherPayload }
  /**
   * A call of a task: the inputs the call gives; the engine prepares its run (run/task.ts), reading the others from the
   * inputs JSON under `prefix`. `alias`: the name its outputs go under (none: the run's own task).
   */
  | {
      readonly kind: 'task';
      readonly task: Task;
      readonly doc: string;
      readonly inputs: ReadonlyMap<string, WdlValue>;
      readonly prefix: string;
      readonly alias?: string;
    };

/** What a job of a WDL run is, now that the jobs it reads from have ended. */
export function resolveWdlJob(context: WdlRunContext, key: string, payload: WdlJobPayload): WdlResolution {
  if (payload.kind === 'root') {
    const target = targetOf(context.bundle, context.target);
    if (target.kind === 'task') {
      return { kind: 'task', task: target.task, doc: context.bundle.main.doc.file, inputs: new Map(), prefix: target.task.name };
    }
    return expandWorkflow(context, context.bundle.main, target.workflow, new Map(), target.workflow.name, key, undefined);
  }
  const document = context.docs.get(payload.doc);
  const workflow = document?.doc.workflow;
  if (!document || !workflow) throw new Error(`engine error: no workflow in ${payload.doc}`);
  const element = elementAt(workflow, payload.path);
  const scope = bindingScope(payload.bindings, context.outputsOf, context.bundle.structs, context.files);
  switch (element.kind) {
    case 'decl':
      return { kind: 'value', outputs: { [element.name]: coerce(evaluate(element.expr!, scope), element.type, scope.structs) } };
    case 'call': {
      const callee = findCallee(document, element.callee);
      if (!callee) throw new WdlRuntimeError(`no task or workflow '${element.callee}'`, element.pos);
      const given = new Map(element.inputs.map(([name, expr]) => [name, evaluate(expr, scope)] as const));
      const prefix = `${payload.prefix}.${element.alias}`;
      if (callee.kind === 'workflow') return expandWorkflow(context, callee.in, callee.workflow, given, prefix, key, element.alias);
      return { kind: 'task', task: callee.task, doc: callee.in.doc.file, inputs: given, prefix, alias: element.alias };
    }
    case 'scatter':
      return expandScatter(context, element, payload, key, scope);
    case 'if': {
      const cond = evaluate(element.expr, scope);
      if (cond.t !== 'Boolean') throw new WdlRuntimeError(`'if' needs a Boolean, not a ${cond.t}`, element.expr.pos);
      if (!cond.v) return { kind: 'skip', outputs: noneOutputs(element, document) };
      const bindings = bodyBindings(payload.bindings, element.body, key);
      const jobs = bodyJobs(element.body, payload, bindings, key, payload.path);
      return { kind: 'expand', jobs, gather: { kind: 'if', names: declaredNames(element), bindings: onlyNames(bindings, declaredNames(element)) } };
    }
  }
}

/** A workflow's body as jobs, and its outputs gathered when they have ended. */
function expandWorkflow(
  context: WdlRunContext,
  document: LoadedDocument,
  workflow: Workflow,
  given: ReadonlyMap<string, WdlValue>,
  prefix: string,
  key: string,
  alias: string | undefined,
): WdlResolution {
  const scope = bindingScope({}, context.outputsOf, context.bundle.structs, context.files);
  const json = (name: string) => context.inputs[`${prefix}.${name}`];
  const late = lateInputs(workflow, given, json);
  const inputs = evaluateDecls(
    workflow.inputs.filter((decl) => !late.has(decl.name)),
    scope,
    given,
    json,
    prefix,
  );
  const inputBindings: Record<string, Binding> = Object.fromEntries([...inputs].map(([name, value]) => [name, { value }]));
  // Inputs whose defaults read the body are jobs of it, placed by their index among the inputs (locate.ts, elementAt).
  const lateAt = workflow.inputs.flatMap((decl, i) => (late.has(decl.name) ? [i] : []));
  const elements: WorkflowElement[] = [...lateAt.map((i): WorkflowElement => ({ kind: 'decl', ...workflow.inputs[i]! })), ...workflow.body];
  const paths = [...lateAt.map((i) => [-1 - i]), ...workflow.body.map((_, i) => [i])];
  const bindings = bodyBindings(inputBindings, elements, key);
  const payload = { kind: 'element' as const, doc: document.doc.file, path: [], bindings, prefix };
  const jobs = bodyJobs(elements, payload, bindings, key, [], paths);
  const gather: WdlGatherPayload = { kind: 'workflow', doc: document.doc.file, bindings, root: alias === undefined, prefix, ...(alias ? { alias } : {}) };
  return { kind: 'expand', jobs, gather };
}

/**
 * The inputs not given whose defaults read a call or declaration of the body (spec "Evaluation of Workflow Elements":
 * `Int y = d1.out`), or another such input: evaluated as declarations of the body, once what they read has ended.
 */
function lateInputs(workflow: Workflow, given: ReadonlyMap<string, WdlValue>, json: (name: string) => unknown): Set<string> {
  const body = new Set(workflow.body.flatMap(declaredNames));
  const late = new Set<string>();
  for (let grew = true; grew;) {
    grew = false;
    for (const decl of workflow.inputs) {
      if (late.has(decl.name) || !decl.expr || given.has(decl.name) || json(decl.name) !== undefined) continue;
      if ([...exprNames(decl.expr)].some((name) => body.has(name) || late.has(name))) {
        late.add(decl.name);
        grew = true;
      }
    }
  }
  return late;
}

/** The bindings of a body's names: each to the job of the element that declares it, keyed under `key`. */
function bodyBindings(outer: Bindings, body: readonly WorkflowElement[], key: string): Bindings {
  const bindings: Record<string, Binding> = { ...outer };
  for (const element of body) for (const name of declaredNames(element)) bindings[name] = { key: `${key}/${elementName(element)}` };
  return bindings;
}

function onlyNames(bindings: Bindings, names: readonly string[]): Bindings {
  return Object.fromEntries(names.map((name) => [name, bindings[name]!]));
}

/** A job for each element of a body, waiting for the jobs whose names it reads. */
function bodyJobs(
  body: readonly WorkflowElement[],
  parent: Extract<WdlJobPayload, { kind: 'element' }>,
  bindings: Bindings,
  key: string,
  path: readonly number[],
  paths: readonly (readonly number[])[] = body.map((_, index) => [...path, index]),
): NewWdlJob[] {
  return body.map((element, index) => {
    const own = `${key}/${elementName(element)}`;
    const reads = [...freeNames(element)].filter((name) => bindings[name] !== undefined);
    // Only the jobs of this expansion are waited for: a job outside it that the body reads has ended already (the
    // expanding job waited for it), and the engine adds a job waiting only for jobs of its own expansion.
    const inside = (b: Binding) => 'key' in b && b.key !== own && b.key.startsWith(`${key}/`);
    const deps = [...new Set(reads.map((name) => bindings[name]!).flatMap((b) => (inside(b) && 'key' in b ? [b.key] : [])))];
    const payload: WdlJobPayload = { kind: 'element', doc: parent.doc, path: paths[index]!, bindings: onlyNames(bindings, reads), prefix: parent.prefix };
    return { key: own, name: jobName(element), deps, payload };
  });
}

function jobName(element: WorkflowElement): string {
  if (element.kind === 'scatter') return `scatter (${element.variable})`;
  if (element.kind === 'if') return 'if';
  return elementName(element);
}

function expandScatter(
  context: WdlRunContext,
  element: Extract<WorkflowElement, { kind: 'scatter' }>,
  payload: Extract<WdlJobPayload, { kind: 'element' }>,
  key: string,
  scope: ReturnType<typeof bindingScope>,
): WdlResolution {
  const collection = evaluate(element.expr, scope);
  if (collection.t !== 'Array') throw new WdlRuntimeError(`scatter needs an Array, not a ${collection.t}`, element.expr.pos);
  const names = declaredNames(element);
  const jobs: NewWdlJob[] = [];
  const instances: Bindings[] = [];
  collection.items.forEach((item, i) => {
    const instance = `${key}[${i}]`;
    const bindings = bodyBindings({ ...payload.bindings, [element.variable]: { value: item } }, element.body, instance);
    jobs.push(...bodyJobs(element.body, payload, bindings, instance, payload.path));
    instances.push(onlyNames(bindings, names));
  });
  const document = context.docs.get(payload.doc)!;
  return { kind: 'expand', jobs, gather: { kind: 'scatter', names, calls: callOutputNames(element, document), instances } };
}

/** The calls a body makes (at any depth), with the names of their outputs. */
function callOutputNames(element: WorkflowElement, document: LoadedDocument): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const visit = (e: WorkflowElement) => {
    if (e.kind === 'call') {
      const callee = findCallee(document, e.callee);
      out[e.alias] = callee ? [...calleeOutputs(callee, new Map()).keys()] : [];
    } else if (e.kind !== 'decl') e.body.forEach(visit);
  };
  visit(element);
  return out;
}

/** The outputs of an if whose condition is false: None for each name, a call's outputs each None. */
function noneOutputs(element: WorkflowElement, document: LoadedDocument): WdlJobOutputs {
  const calls = callOutputNames(element, document);
  return Object.fromEntries(
    declaredNames(element).map((name) => {
      const members = calls[name];
      return [name, members ? { t: 'Object', members: Object.fromEntries(members.map((m) => [m, NONE])) } : NONE];
    }),
  );
}

/** The outputs of a job that expanded, from the jobs it added. */
export function gatherWdlJob(context: WdlRunContext, gather: WdlGatherPayload): WdlJobOutputs {
  const { structs } = context.bundle;
  switch (gather.kind) {
    case 'if': {
      const scope = bindingScope(gather.bindings, context.outputsOf, structs, context.files);
      return Object.fromEntries(gather.names.map((name) => [name, scope.lookup(name) ?? NONE]));
    }
    case 'scatter': {
      const scopes = gather.instances.map((bindings) => bindingScope(bindings, context.outputsOf, structs, context.files));
      const column = (name: string) => scopes.map((scope) => scope.lookup(name) ?? NONE);
      return Object.fromEntries(
        gather.names.map((name): [string, WdlValue] => {
          const members = gather.calls[name];
          if (!members) return [name, { t: 'Array', items: column(name) }];
          const values = column(name);
          const member = (m: string): WdlValue => ({ t: 'Array', items: values.map((v) => (v.t === 'Object' ? (v.members[m] ?? NONE) : NONE)) });
          return [name, { t: 'Object', members: Object.fromEntries(members.map((m) => [m, member(m)])) }];
        }),
      );
    }
    case 'workflow':
      return workflowOutputs(context, gather);
  }
}

function workflowOutputs(context: WdlRunContext, gather: Extract<WdlGatherPayload, { kind: 'workflow' }>): WdlJobOutputs {
  const workflow = context.docs.get(gather.doc)?.doc.workflow;
  if (!workflow) throw new Error(`engine error: no workflow in ${gather.doc}`);
  const scope = bindingScope(gather.bindings, context.outputsOf, context.bundle.structs, context.files);
  let outputs: Map<string, WdlValue>;
  if (workflow.outputs) outputs = evaluateDecls(workflow.outputs, scope, new Map(), () => undefined, gather.prefix);
  else {
    // WDL 1.0 without an output section: every output of the workflow's calls (`call.out`).
    outputs = new Map();
    for (const element of workflow.body) {
      if (element.kind !== 'call') continue;
      const value = scope.lookup(element.alias);
      if (value?.t === 'Object') for (const [name, v] of Object.entries(value.members)) outputs.set(`${element.alias}.${name}`, v);
    }
  }
  if (gather.root) return Object.fromEntries([...outputs].map(([name, value]) => [`${workflow.name}.${name}`, value]));
  return { [gather.alias!]: { t: 'Object', members: Object.fromEntries(outputs) } };
}
