import type { Workflow, WorkflowElement } from '../ast.js';
import { findCallee, type LoadedDocument } from '../load.js';
import { callsOf } from './call-sites.js';
import { exprNames, freeNames } from './names.js';

/**
 * A WDL restart (docs/wdl.md, "Restart"): the calls named, and every call downstream of them, run again; the others
 * come from the restarted task (its jobs are the new task's reference task in the call cache). What a named call
 * changes (its runtime, its command) applies to that call only. Calls are known by their paths (run/call-sites.ts):
 * `align`, or `qc.fastp` inside the subworkflow call `qc`.
 */

/** What one call changes when it runs again. */
export interface CallOverride {
  readonly cpu?: number;
  /** MiB. */
  readonly memMb?: number;
  /**
   * MiB of disk the call needs: shown on its job, and checked against the free space of gdflow's data root when it
   * starts (run/disks.ts, diskShortfall); not reserved, as gdflow reserves disk for no job.
   */
  readonly diskMb?: number;
  /** The replacement command section's text: `~{}` placeholders as in `command <<< >>>` (parser/command-text.ts). */
  readonly command?: string;
}

/** What a restart's task keeps in its plan: the task restarted, the calls to run again, each named call's changes. */
export interface WdlRestart {
  readonly fromTaskId: string;
  /** Paths of calls (or the task run): these and everything inside them run again. */
  readonly rerun: readonly string[];
  /** By call path. */
  readonly overrides: { readonly [path: string]: CallOverride };
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
  const path = parts.length === 1 ? parts[0]! : parts.slice(1).join('.');
  const override = Object.hasOwn(restart.overrides, path) ? restart.overrides[path] : undefined;
  const rerun = restart.rerun.some((named) => path === named || path.startsWith(`${named}.`));
  return { rerun, ...(override ? { override } : {}) };
}

/**
 * The calls of a run that run again when the calls at `named` paths do (`a`, `sub.inner`): those, and every call
 * that reads (through any chain of declarations, calls, scatters' collections and conditions, or `after`) what they
 * make, at any depth: inside a subworkflow, what reads the call named there; outside it, what reads the subworkflow
 * call's outputs when they read it. A subworkflow call itself downstream of a call run again runs again whole. Paths,
 * as `named` are. Pure: from the documents.
 */
export function callsToRerun(document: LoadedDocument, workflow: Workflow, named: readonly string[]): string[] {
  return rerunIn(
    document,
    workflow,
    named.map((path) => path.split('.')),
  ).paths;
}

function rerunIn(document: LoadedDocument, workflow: Workflow, named: readonly (readonly string[])[], depth = 0): { paths: string[]; outputs: boolean } {
  const whole = new Set(named.filter((path) => path.length === 1).map((path) => path[0]!));
  // Calls of subworkflows named inside: what runs again in each, and whether that changes the call's outputs.
  const inside = new Map<string, string[]>();
  const seeds = new Set(whole);
  const calls = callsOf(workflow.body);
  for (const call of calls) {
    const within = named.filter((path) => path.length > 1 && path[0] === call.alias).map((path) => path.slice(1));
    const callee = within.length > 0 && !whole.has(call.alias) && depth < 32 ? findCallee(document, call.callee) : undefined;
    if (callee?.kind !== 'workflow') continue;
    const inner = rerunIn(callee.in, callee.workflow, within, depth + 1);
    inside.set(
      call.alias,
      inner.paths.map((path) => `${call.alias}.${path}`),
    );
    if (inner.outputs) seeds.add(call.alias);
  }
  const dependsOn = dependencies(workflow);
  const affected = spread(dependsOn, seeds);
  const readsAffected = (name: string) => [...(dependsOn.get(name) ?? [])].some((read) => affected.has(read));
  const paths = calls.flatMap((call) => {
    if (whole.has(call.alias) || readsAffected(call.alias)) return [call.alias];
    return inside.get(call.alias) ?? [];
  });
  // The workflow's outputs change when one reads what changed (1.0 without an output section: every call's outputs).
  const outputs = workflow.outputs
    ? spread(new Map(workflow.outputs.map((decl) => [decl.name, decl.expr ? exprNames(decl.expr) : new Set<string>()])), affected).size > affected.size
    : calls.some((call) => affected.has(call.alias));
  return { paths, outputs };
}

/** Each name a workflow declares (an input with a default, a declaration, a call, a scatter's variable) with the names its value reads. */
function dependencies(workflow: Workflow): Map<string, Set<string>> {
  const dependsOn = new Map<string, Set<string>>();
  for (const decl of workflow.inputs) if (decl.expr) dependsOn.set(decl.name, exprNames(decl.expr));
  const visit = (body: readonly WorkflowElement[], enclosing: ReadonlySet<string>) => {
    for (const element of body) {
      if (element.kind === 'decl' || element.kind === 'call') {
        const name = element.kind === 'decl' ? element.name : element.alias;
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
  return dependsOn;
}

/** `from` and every name that reads one of them, through any chain. */
function spread(dependsOn: ReadonlyMap<string, ReadonlySet<string>>, from: ReadonlySet<string>): Set<string> {
  const affected = new Set(from);
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
  return affected;
}
