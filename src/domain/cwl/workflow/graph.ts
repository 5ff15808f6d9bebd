import { CwlValidationError } from '../errors.js';
import type { Workflow, WorkflowStep } from '../model.js';

/**
 * A workflow's step graph: what each step input and each workflow output reads (a workflow input or another
 * step's output), which steps each step waits for, and an order of the steps in which every step comes after
 * those it reads from. The model already holds every `source` and `outputSource` as the absolute id it names
 * (the front end checked that it names something); this makes the edges explicit for the engine.
 */

/** Where a data link starts: a workflow input, or an output of a step of the same workflow. */
export type SourceLink =
  | { readonly kind: 'input'; readonly id: string; readonly name: string }
  | { readonly kind: 'step'; readonly id: string; readonly step: string; readonly stepName: string; readonly output: string };

export interface PlannedStepInput {
  /** The step input's short name (the key of the step's input object). */
  readonly name: string;
  /** In the order of `source`. */
  readonly sources: readonly SourceLink[];
}

export interface PlannedStep {
  readonly step: WorkflowStep;
  /** Ids of the steps whose outputs this step reads (each once), in the workflow's order. */
  readonly after: readonly string[];
  readonly inputs: readonly PlannedStepInput[];
}

export interface PlannedOutput {
  readonly name: string;
  readonly sources: readonly SourceLink[];
}

export interface WorkflowPlan {
  /** Every step, each after the steps it reads from; independent steps keep the document's order. */
  readonly steps: readonly PlannedStep[];
  readonly outputs: readonly PlannedOutput[];
}

/**
 * The plan of `workflow`. A cycle between steps (a step that reads, directly or through others, its own
 * output) is a CwlValidationError naming the steps of the cycle in order (`step 'a' -> 'b' -> 'a'`).
 */
export function planWorkflow(workflow: Workflow): WorkflowPlan {
  const link = linker(workflow);
  const planned = workflow.steps.map((step): PlannedStep => {
    const inputs = step.in.map((input) => ({ name: input.name, sources: input.source.map(link) }));
    const upstream = new Set(inputs.flatMap((i) => i.sources.flatMap((s) => (s.kind === 'step' ? [s.step] : []))));
    return { step, after: workflow.steps.filter((s) => upstream.has(s.id)).map((s) => s.id), inputs };
  });
  const outputs = workflow.outputs.map((output) => ({ name: output.name, sources: output.outputSource.map(link) }));
  return { steps: ordered(planned), outputs };
}

/** Turns source ids into links; an id the workflow does not declare is a document error. */
function linker(workflow: Workflow): (id: string) => SourceLink {
  const links = new Map<string, SourceLink>();
  for (const input of workflow.inputs) links.set(input.id, { kind: 'input', id: input.id, name: input.name });
  for (const step of workflow.steps) {
    for (const out of step.out) links.set(out.id, { kind: 'step', id: out.id, step: step.id, stepName: step.name, output: out.name });
  }
  return (id) => {
    const found = links.get(id);
    if (found) return found;
    throw new CwlValidationError([{ message: `${id} is not an input or a step output of the workflow ${workflow.id}` }]);
  };
}

/** Kahn's order, taking at each round the first ready step in document order. */
function ordered(steps: readonly PlannedStep[]): PlannedStep[] {
  const done = new Set<string>();
  const out: PlannedStep[] = [];
  let pending = [...steps];
  while (pending.length > 0) {
    const ready = pending.find((s) => s.after.every((id) => done.has(id)));
    if (ready === undefined) throw cycleError(pending);
    out.push(ready);
    done.add(ready.step.id);
    pending = pending.filter((s) => s !== ready);
  }
  return out;
}

/** Every step left is on a cycle or downstream of one: walk back along `after` until a step repeats. */
function cycleError(pending: readonly PlannedStep[]): CwlValidationError {
  const byId = new Map(pending.map((s) => [s.step.id, s]));
  const path: PlannedStep[] = [];
  let current = pending[0]!;
  while (!path.includes(current)) {
    path.push(current);
    current = byId.get(current.after.find((id) => byId.has(id))!)!;
  }
  // In the order data flows, starting from the step the workflow lists first.
  const reversed = path.slice(path.indexOf(current)).reverse();
  const first = reversed.indexOf(pending.find((s) => reversed.includes(s))!);
  const cycle = [...reversed.slice(first), ...reversed.slice(0, first)];
  const names = [...cycle, cycle[0]!].map((s) => `'${s.step.name}'`).join(' -> ');
  const message = `steps ${names} form a cycle: each reads an output of the one before it, so none can start`;
  return new CwlValidationError([cycle[0]!.step.at ? { message, at: cycle[0]!.step.at } : { message }]);
}
