import type { FileContentReader } from '../contents.js';
import type { CwlInputObject, CwlValue, Workflow } from '../model.js';
import { bindInputs } from '../types/inputs.js';
import type { FormatOntology } from '../types/format.js';
import { planWorkflow, type SourceLink } from './graph.js';
import { loadContentsFor } from './load-contents.js';
import { stepJobKey, type CwlGatherPayload, type CwlNewJob, type CwlValueSource } from './payload.js';

/**
 * A workflow run as jobs: the root workflow of a run, or the subworkflow a step runs (for each scatter instance of
 * it). Each step becomes a job keyed under the workflow's job (`main/qc` + `/trim`), waiting for the steps it
 * reads from; its payload says where each source's value comes from: the workflow's inputs are known now and are
 * written in as values, step outputs are named by job and output. The workflow's job gathers its outputs from the
 * same kind of sources once every step has ended (a workflow is complete when all its steps are, used or not).
 */

/** The job a workflow is expanded for: its key, and the path of the step that runs the workflow ([] for the root). */
export interface WorkflowScope {
  readonly key: string;
  readonly path: readonly string[];
}

export interface WorkflowExpansion {
  /** One job per step, each after the jobs it waits for. */
  readonly jobs: readonly CwlNewJob[];
  readonly gather: CwlGatherPayload & { readonly kind: 'workflow' };
}

/** The jobs of `workflow` for the input object `inputs` (bound: see bindWorkflowInputs). */
export function expandWorkflow(workflow: Workflow, scope: WorkflowScope, inputs: CwlInputObject): WorkflowExpansion {
  const plan = planWorkflow(workflow);
  const sourceOf = (link: SourceLink): CwlValueSource =>
    link.kind === 'input' ? { value: inputs[link.name] ?? null } : { job: stepJobKey(scope.key, link.stepName), output: link.output };
  const sources = (links: readonly SourceLink[]): Record<string, CwlValueSource> => Object.fromEntries(links.map((l) => [l.id, sourceOf(l)]));
  const jobs = plan.steps.map((planned): CwlNewJob => ({
    key: stepJobKey(scope.key, planned.step.name),
    deps: planned.after.map((id) => stepJobKey(scope.key, workflow.steps.find((s) => s.id === id)!.name)),
    payload: { kind: 'step', path: [...scope.path, planned.step.id], sources: sources(planned.inputs.flatMap((i) => i.sources)) },
  }));
  return { jobs, gather: { kind: 'workflow', path: scope.path, sources: sources(plan.outputs.flatMap((o) => o.sources)) } };
}

/**
 * A workflow's input object from the values given to it (the job object for the root, the step's inputs for a
 * subworkflow): every input checked against its type, defaults filled in (bindInputs; a CwlValidationError names
 * every problem), and `contents` loaded for the inputs that declare `loadContents`.
 */
export async function bindWorkflowInputs(
  workflow: Workflow,
  values: Readonly<Record<string, unknown>>,
  options: { ontology?: FormatOntology; contents?: FileContentReader } = {},
): Promise<CwlInputObject> {
  const bound: Record<string, CwlValue> = { ...bindInputs(workflow.inputs, values, options.ontology ? { ontology: options.ontology } : {}) };
  for (const input of workflow.inputs) {
    if (!input.loadContents) continue;
    if (options.contents === undefined) throw new Error(`the workflow input '${input.name}' loads contents, but no FileContentReader was given`);
    bound[input.name] = await loadContentsFor(`workflow input '${input.name}'`, bound[input.name] ?? null, options.contents, workflow.cwlVersion);
  }
  return bound;
}
