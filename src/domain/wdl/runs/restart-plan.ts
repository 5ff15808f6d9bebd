import type { Store } from '../../../store/store.js';
import { invalid } from '../../errors.js';
import type { Task, Workflow, WorkflowElement } from '../ast.js';
import { WdlError } from '../errors.js';
import { findCallee, type LoadedDocument } from '../load.js';
import { parseCommandText } from '../parser/command-text.js';
import { exprNames } from '../run/names.js';
import { callsToRerun, type CallOverride, type WdlRestart } from '../run/restart.js';
import { wdlPlanOf } from './plan.js';

/** A restart as the `wdl/tasks/` routes ask it (domain/wdl/workflows/debug-params.ts reads gdpy's `debug_params`). */
export interface RestartRequest {
  /** The task restarted: its calls not run again are reused from it. */
  readonly fromTaskId: string;
  /** Per call of the main workflow (by alias): new resources and an optional new command; item i is `debug_params[i]`. */
  readonly debug: ReadonlyArray<{
    readonly call: string;
    readonly cpu?: number;
    readonly memoryBytes?: number;
    readonly diskBytes?: number;
    readonly command?: string;
  }>;
}

const MIB = 2 ** 20;

/**
 * The restart a new WDL task's plan keeps (run/restart.ts): the task restarted must be a WDL task of the project, each
 * call named must be one the run makes, a changed command must parse and name only its task's inputs and declarations,
 * and only a task call (not a subworkflow's) can be given a runtime or a command. Refusals name `debug_params[i]`. The
 * changes the task restarted ran with (itself a restart) are kept, those asked now added over them.
 */
export async function restartPlan(
  store: Store,
  projectId: string,
  main: LoadedDocument,
  target: { kind: 'workflow'; workflow: Workflow } | { kind: 'task'; task: Task },
  request: RestartRequest,
): Promise<WdlRestart> {
  const from = /^[0-9a-f]{24}$/.test(request.fromTaskId) ? await store.getTask(request.fromTaskId) : undefined;
  if (!from || from.projectId !== projectId || from.deleteRequested || wdlPlanOf(from.plan) === undefined)
    throw invalid(`the task restarted, '${request.fromTaskId.slice(0, 64)}', is not a WDL task of this project`);
  // A restart of a restart keeps the changes the task restarted ran with; a call named again changes them further.
  // A Map: a call may be named `constructor` or `__proto__`.
  const overrides = new Map<string, CallOverride>(Object.entries(wdlPlanOf(from.plan)!.restart?.overrides ?? {}));
  request.debug.forEach((change, i) => {
    const at = `debug_params[${i}]`;
    const task = calledTask(main, target, change.call, at);
    const changes = change.cpu !== undefined || change.memoryBytes !== undefined || change.diskBytes !== undefined || change.command !== undefined;
    if (changes && !task) throw invalid(`${at}: call '${change.call}' runs a subworkflow: only a task call's runtime and command can be changed`);
    if (change.command !== undefined) checkCommand(change.command, task!, `${at}.command`);
    overrides.set(change.call, {
      ...overrides.get(change.call),
      ...(change.cpu !== undefined ? { cpu: Math.ceil(change.cpu) } : {}),
      ...(change.memoryBytes !== undefined ? { memMb: Math.ceil(change.memoryBytes / MIB) } : {}),
      ...(change.diskBytes !== undefined ? { diskMb: Math.ceil(change.diskBytes / MIB) } : {}),
      ...(change.command !== undefined ? { command: change.command } : {}),
    });
  });
  const named = request.debug.map((change) => change.call);
  const rerun = target.kind === 'task' ? named.filter((name) => name === target.task.name) : callsToRerun(target.workflow, named);
  return { fromTaskId: from.id, rerun, overrides: Object.fromEntries(overrides) };
}

/** The task a call of the run calls (undefined: a subworkflow); a name the run does not call is refused. */
function calledTask(main: LoadedDocument, target: Parameters<typeof restartPlan>[3], alias: string, at: string): Task | undefined {
  if (target.kind === 'task') {
    if (alias !== target.task.name) throw invalid(`${at}.job_name '${alias}' is not the task this run runs ('${target.task.name}')`);
    return target.task;
  }
  const find = (body: readonly WorkflowElement[]): Extract<WorkflowElement, { kind: 'call' }> | undefined => {
    for (const element of body) {
      if (element.kind === 'call' && element.alias === alias) return element;
      if (element.kind === 'scatter' || element.kind === 'if') {
        const found = find(element.body);
        if (found) return found;
      }
    }
    return undefined;
  };
  const call = find(target.workflow.body);
  if (!call) throw invalid(`${at}.job_name '${alias}' is no call of workflow ${target.workflow.name}`);
  const callee = findCallee(main, call.callee);
  return callee?.kind === 'task' ? callee.task : undefined;
}

/** A replacement command parses, and its placeholders read only the task's inputs and private declarations. */
function checkCommand(text: string, task: Task, at: string): void {
  let parts;
  try {
    parts = parseCommandText(text, at);
  } catch (error) {
    // Its first line is read after the `<<<` that opens it.
    const column = error instanceof WdlError && error.line === 1 ? error.column - 3 : (error as WdlError).column;
    if (error instanceof WdlError) throw invalid(`${at} is not a WDL command: line ${error.line}, column ${column}: ${error.what}`);
    throw error;
  }
  const declared = new Set([...task.inputs, ...task.privates].map((decl) => decl.name));
  for (const part of parts) {
    if (typeof part === 'string') continue;
    for (const name of exprNames(part.expr)) {
      if (!declared.has(name)) {
        const known = [...declared].slice(0, 20).join(', ') || 'none';
        throw invalid(`${at}: ~{${name}} is no input or declaration of task ${task.name} (its names: ${known})`);
      }
    }
  }
}
