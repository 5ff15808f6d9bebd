import type { Decl, Task, Workflow } from './ast.js';
import { calleeInputs, checkDocument } from './check/document.js';
import { WdlError } from './errors.js';
import { findCallee, loadDocuments, type LoadedDocument, type WdlSources } from './load.js';
import { exprText } from './print.js';
import { typeText, type StructTable } from './types.js';

/**
 * WDL 1.0 and 1.1 (docs/wdl.md): documents parsed and type-checked (loadWdl), the inputs template of a workflow
 * (inputsTemplate), expressions and the standard library (eval.ts, stdlib/). Pure: files come in as text.
 */
export { WdlError, WdlRuntimeError, type Pos } from './errors.js';
export type { WdlSources, LoadedDocument } from './load.js';

/** A checked WDL document with its imports. */
export interface WdlBundle {
  /** The main document's version: '1.0' or '1.1'. */
  readonly version: string;
  /** The main document's workflow, if it has one. */
  readonly workflowName: string | undefined;
  /** The main document's tasks. */
  readonly taskNames: readonly string[];
  readonly main: LoadedDocument;
  readonly structs: StructTable;
}

/** Parses the main document and its imports and type-checks them all; WdlError (file, line, column) on the first error. */
export function loadWdl(sources: WdlSources): WdlBundle {
  const { main, structs } = loadDocuments(sources);
  checkDocument(main, structs);
  return { version: main.doc.version, workflowName: main.doc.workflow?.name, taskNames: main.doc.tasks.map((t) => t.name), main, structs };
}

/** The workflow (or the task named `target`) a run of the bundle runs; WdlError when there is none. */
export function targetOf(bundle: WdlBundle, target?: string): { kind: 'workflow'; workflow: Workflow } | { kind: 'task'; task: Task } {
  const doc = bundle.main.doc;
  const pos = { file: doc.file, line: 1, column: 1 };
  if (target !== undefined && target !== doc.workflow?.name) {
    const task = doc.tasks.find((t) => t.name === target);
    if (!task) throw new WdlError(pos, `the document has no task or workflow named '${target}'`);
    return { kind: 'task', task };
  }
  if (doc.workflow) return { kind: 'workflow', workflow: doc.workflow };
  if (doc.tasks.length === 1) return { kind: 'task', task: doc.tasks[0]! };
  throw new WdlError(pos, 'the document has no workflow: name the task to run');
}

/** How an input shows in the template: `Int`, `String? (optional)`, `Int (optional, default = 3)`. */
function describe(decl: Decl): string {
  if (decl.expr) return `${typeText(decl.type)} (optional, default = ${exprText(decl.expr)})`;
  return decl.type.optional ? `${typeText(decl.type)} (optional)` : typeText(decl.type);
}

/**
 * The inputs template (womtool's `inputs`): each input of the workflow (or task) by its full name, `"wf.x": "Int"`,
 * and the inputs of its calls the workflow does not give, `"wf.call.y": "String? (optional)"`, which an inputs file may
 * set (spec "Computing Call Inputs").
 */
export function inputsTemplate(bundle: WdlBundle, target?: string): Record<string, string> {
  return Object.fromEntries([...inputDeclarations(bundle, target)].map(([name, decl]) => [name, describe(decl)]));
}

/** The inputs an inputs JSON may set, by their full names (inputsTemplate's keys), with their declarations. */
export function inputDeclarations(bundle: WdlBundle, target?: string): Map<string, Decl> {
  const chosen = targetOf(bundle, target);
  const inputs = new Map<string, Decl>();
  if (chosen.kind === 'task') {
    for (const decl of chosen.task.inputs) inputs.set(`${chosen.task.name}.${decl.name}`, decl);
    return inputs;
  }
  addWorkflow(inputs, chosen.workflow.name, chosen.workflow, bundle.main);
  return inputs;
}

/**
 * The task calls of a run by their prefixes in the inputs JSON (`wf.call`, `wf.sub.call`; the task's name when a task
 * is run), whose runtime attributes an inputs JSON may set (`wf.call.runtime.disks`: spec "Specifying / Overriding
 * Runtime Attributes"; a call in a scatter: every instance).
 */
export function taskCallPrefixes(bundle: WdlBundle, target?: string): Set<string> {
  const chosen = targetOf(bundle, target);
  if (chosen.kind === 'task') return new Set([chosen.task.name]);
  const tasks = new Set<string>();
  addWorkflow(new Map(), chosen.workflow.name, chosen.workflow, bundle.main, tasks);
  return tasks;
}

function addWorkflow(inputs: Map<string, Decl>, prefix: string, workflow: Workflow, document: LoadedDocument, tasks?: Set<string>): void {
  for (const decl of workflow.inputs) inputs.set(`${prefix}.${decl.name}`, decl);
  const visit = (body: Workflow['body']) => {
    for (const element of body) {
      if (element.kind === 'scatter' || element.kind === 'if') visit(element.body);
      if (element.kind !== 'call') continue;
      const callee = findCallee(document, element.callee);
      if (!callee) continue;
      const given = new Set(element.inputs.map(([name]) => name));
      const callPrefix = `${prefix}.${element.alias}`;
      if (callee.kind === 'workflow') {
        const sub = new Map<string, Decl>();
        addWorkflow(sub, callPrefix, callee.workflow, callee.in, tasks);
        for (const [key, decl] of sub) if (!given.has(key.slice(callPrefix.length + 1))) inputs.set(key, decl);
        continue;
      }
      tasks?.add(callPrefix);
      for (const decl of calleeInputs(callee)) if (!given.has(decl.name)) inputs.set(`${callPrefix}.${decl.name}`, decl);
    }
  };
  visit(workflow.body);
}
