import type { Call, Task, Workflow, WorkflowElement } from '../ast.js';
import { findCallee, type LoadedDocument } from '../load.js';

/**
 * The calls a WDL run makes at any depth of its subworkflows, and how a restart's `debug_params[i].job_name` names one
 * (docs/wdl.md, "Restart"). Pure: from the documents.
 */

/** One call of a run, wherever it is. */
export interface CallSite {
  /** Its aliases from the run's workflow down: `align`, or `qc.fastp` for the call `fastp` of the subworkflow call `qc`. */
  readonly path: string;
  readonly alias: string;
  /** The name of the workflow whose body makes it (the main workflow's, or a subworkflow's). */
  readonly within: string;
  /** The task it runs; absent: it calls a subworkflow. */
  readonly task?: Task;
}

/** How deep subworkflows are followed (imports cannot cycle: the loader refuses that long before). */
const MAX_DEPTH = 32;

/** The calls of a body, in scatters and conditionals too. */
export function callsOf(body: readonly WorkflowElement[]): Call[] {
  return body.flatMap((element) => (element.kind === 'call' ? [element] : element.kind === 'decl' ? [] : callsOf(element.body)));
}

/** Every call of `workflow` and of the subworkflows it calls, outermost first. */
export function callSites(document: LoadedDocument, workflow: Workflow, prefix = '', depth = 0): CallSite[] {
  if (depth > MAX_DEPTH) return [];
  return callsOf(workflow.body).flatMap((call) => {
    const path = `${prefix}${call.alias}`;
    const callee = findCallee(document, call.callee);
    const site: CallSite = { path, alias: call.alias, within: workflow.name, ...(callee?.kind === 'task' ? { task: callee.task } : {}) };
    if (callee?.kind !== 'workflow') return [site];
    return [site, ...callSites(callee.in, callee.workflow, `${path}.`, depth + 1)];
  });
}

/**
 * The call a job name names, or why none is. Accepted, in this order (the first form that names exactly one call wins;
 * one that names several is ambiguous): its path (`qc.fastp`), also after the run's workflow name as the inputs JSON
 * writes it (`main.qc.fastp`); the name of the workflow that makes it and its alias (`qc_wf.fastp`, Cromwell's); the
 * end of a path, such as the job's own name as the job list shows it (`fastp`). A scatter's instance (`fastp[3]`,
 * `qc[0].fastp`) names its call.
 */
export function siteNamed(sites: readonly CallSite[], runName: string, name: string): CallSite | { readonly refused: string } {
  const wanted = name.replace(/\[\d+\]/g, '');
  const forms: ((site: CallSite) => boolean)[] = [
    (site) => site.path === wanted || `${runName}.${site.path}` === wanted,
    (site) => `${site.within}.${site.alias}` === wanted,
    (site) => site.path.endsWith(`.${wanted}`),
  ];
  for (const form of forms) {
    const found = sites.filter(form);
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      const paths = found.map((site) => site.path).slice(0, 20);
      return { refused: `names ${found.length} calls (${paths.join(', ')}): name one by its path` };
    }
  }
  const known = sites.map((site) => site.path).slice(0, 20);
  return { refused: `is no call of workflow ${runName} (its calls: ${known.join(', ') || 'none'})` };
}
