import type { Workflow, WorkflowElement } from '../ast.js';
import { exprNames, freeNames } from './names.js';

/**
 * A WDL restart (docs/wdl.md, "Restart"): the calls named, and every call downstream of them, run again; the others
 * come from the restarted task (its jobs are the new task's reference task in the call cache). What a named call
 * changes (its runtime, its command) applies to that call only.
 */

/** What one call changes when it runs again. */
export interface CallOverride {
  readonly cpu?: number;
  /** MiB. */
  readonly memMb?: number;
  /** MiB; recorded with the run (gdflow does not schedule by disk, as it does not for WDL's `disks`). */
  readonly diskMb?: number;
  /** The replacement command section's text: `~{}` placeholders as in `command <<< >>>` (parser/command-text.ts). */
  readonly command?: string;
}

/** What a restart's task keeps in its plan: the task restarted, the calls to run again, each named call's changes. */
export interface WdlRestart {
  readonly fromTaskId: string;
  /** Aliases of calls of the main workflow (or the task run): these and everything inside them run again. */
  readonly rerun: readonly string[];
  readonly overrides: { readonly [alias: string]: CallOverride };
}

/** What a restart means for one task call, known by its prefix in the inputs JSON (`wf.call`, `wf.sub.call`, `task`). */
export interface CallRestart {
  /** It must run again, not come from the call cache. */
  readonly rerun: boolean;
  readonly override?: CallOverride;
}

export function callRestart(restart: WdlRestart | undefined, prefix: string): CallRestart {
  if (!restart) return { rerun: false };
  const parts = prefix.split('.');
  // `task` (a task run), `wf.call` (a call of the main workflow), `wf.sub.inner` (inside the subworkflow call `sub`).
  const alias = parts.length === 1 ? parts[0]! : parts[1]!;
  const override = parts.length <= 2 && Object.hasOwn(restart.overrides, alias) ? restart.overrides[alias] : undefined;
  return { rerun: restart.rerun.includes(alias), ...(override ? { override } : {}) };
}

/**
 * The calls of a workflow that run again when `named` do: those, and every call that reads (through any chain of
 * declarations, calls, scatters' collections and conditions, or `after`) what they make. Pure: from the document.
 */
export function callsToRerun(workflow: Workflow, named: readonly string[]): string[] {
  // Each name the body declares (a declaration, a call, a scatter's variable) with the names its value depends on.
  const dependsOn = new Map<string, Set<string>>();
  const calls: string[] = [];
  const visit = (body: readonly WorkflowElement[], enclosing: ReadonlySet<string>) => {
    for (const element of body) {
      if (element.kind === 'decl' || element.kind === 'call') {
        const name = element.kind === 'decl' ? element.name : element.alias;
        if (element.kind === 'call') calls.push(name);
        dependsOn.set(name, new Set([...freeNames(element), ...enclosing]));
        continue;
      }
      // What a scatter's or an if's body declares depends on its collection or condition too.
      const inner = new Set([...enclosing, ...exprNames(element.expr)]);
      if (element.kind === 'scatter') {
        dependsOn.set(element.variable, new Set(inner));
        inner.add(element.variable);
      }
      visit(element.body, inner);
    }
  };
  visit(workflow.body, new Set());
  const affected = new Set(named);
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, reads] of dependsOn) {
      if (affected.has(name)) continue;
      if ([...reads].some((read) => affected.has(read))) {
        affected.add(name);
        grew = true;
      }
    }
  }
  return calls.filter((call) => affected.has(call));
}
