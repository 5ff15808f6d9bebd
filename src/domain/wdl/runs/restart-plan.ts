import type { Store } from '../../../store/store.js';
import { invalid } from '../../errors.js';
import type { Task, Workflow } from '../ast.js';
import { WdlError } from '../errors.js';
import type { LoadedDocument } from '../load.js';
import { parseCommandText } from '../parser/command-text.js';
import { callSites, siteNamed, type CallSite } from '../run/call-sites.js';
import { exprNames } from '../run/names.js';
import { callsToRerun, type CallOverride, type WdlRestart } from '../run/restart.js';
import { wdlPlanOf } from './plan.js';

/** A restart as the `wdl/tasks/` routes ask it (domain/wdl/workflows/debug-params.ts reads gdpy's `debug_params`). */
export interface RestartRequest {
  /** The task restarted: its calls not run again are reused from it. */
  readonly fromTaskId: string;
  /** Per call named (`job_name`, read by run/call-sites.ts): new resources and an optional new command; item i is `debug_params[i]`. */
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
 * call named must be one the run makes at some depth of its subworkflows (run/call-sites.ts, siteNamed), a changed
 * command must parse and name only its task's inputs and declarations, and only a task call (not a subworkflow's) can
 * be given a runtime or a command. Refusals name `debug_params[i]`. The changes the task restarted ran with (itself a
 * restart) are kept, those asked now added over them.
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
  const sites = target.kind === 'workflow' ? callSites(main, target.workflow) : [];
  const named: string[] = [];
  request.debug.forEach((change, i) => {
    const at = `debug_params[${i}]`;
    const site = siteOf(sites, target, change.call, at);
    if (named.includes(site.path)) throw invalid(`${at}.job_name '${change.call.slice(0, 128)}' names call ${site.path} a second time`);
    named.push(site.path);
    const changes = change.cpu !== undefined || change.memoryBytes !== undefined || change.diskBytes !== undefined || change.command !== undefined;
    if (changes && !site.task) throw invalid(`${at}: call '${site.path}' runs a subworkflow: only a task call's runtime and command can be changed`);
    if (change.command !== undefined) checkCommand(change.command, site.task!, `${at}.command`);
    overrides.set(site.path, {
      ...overrides.get(site.path),
      ...(change.cpu !== undefined ? { cpu: Math.ceil(change.cpu) } : {}),
      ...(change.memoryBytes !== undefined ? { memMb: Math.ceil(change.memoryBytes / MIB) } : {}),
      ...(change.diskBytes !== undefined ? { diskMb: Math.ceil(change.diskBytes / MIB) } : {}),
      ...(change.command !== undefined ? { command: change.command } : {}),
    });
  });
  const rerun = target.kind === 'task' ? named : callsToRerun(main, target.workflow, named);
  return { fromTaskId: from.id, rerun, overrides: Object.fromEntries(overrides) };
}

/** The call a job name names (a task run: its task); a name the run does not call, or calls at several places, is refused. */
function siteOf(sites: readonly CallSite[], target: Parameters<typeof restartPlan>[3], name: string, at: string): CallSite {
  const shown = name.slice(0, 128);
  if (target.kind === 'task') {
    if (name.replace(/\[\d+\]$/, '') !== target.task.name) throw invalid(`${at}.job_name '${shown}' is not the task this run runs ('${target.task.name}')`);
    return { path: target.task.name, alias: target.task.name, within: target.task.name, task: target.task };
  }
  const site = siteNamed(sites, target.workflow.name, name);
  if ('refused' in site) throw invalid(`${at}.job_name '${shown}' ${site.refused}`);
  return site;
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
