import type { CwlProcess, Requirement, Workflow, WorkflowStep } from '../model.js';
import { effectiveRequirements, type EffectiveRequirements, type RequirementHolder } from './requirements.js';

/**
 * Finding a step of a run from its path (the ids of the steps from the root workflow down to it, as payloads hold
 * it), with what surrounds it. The same subworkflow file run by two steps is one process in the model, so a step
 * id alone does not say which requirements apply: the path does.
 */
export interface LocatedStep {
  /** The workflows and steps around the step, outermost first: the root, the step that runs the next workflow, it, ... */
  readonly chain: readonly RequirementHolder[];
  /** The workflow the step belongs to. */
  readonly workflow: Workflow;
  readonly step: WorkflowStep;
}

export function locateStep(root: CwlProcess, path: readonly string[]): LocatedStep {
  if (path.length === 0) throw new Error('a step path names at least one step');
  const chain: RequirementHolder[] = [];
  let process = root;
  for (const [depth, id] of path.entries()) {
    if (process.class !== 'Workflow') throw new Error(`${path.slice(0, depth).join(' > ')} runs a ${process.class}, which has no step ${id}`);
    const step = process.steps.find((s) => s.id === id);
    if (step === undefined) throw new Error(`the workflow ${process.id} has no step ${id}`);
    if (depth === path.length - 1) return { chain, workflow: process, step };
    chain.push(process, step);
    process = step.run;
  }
  throw new Error('unreachable');
}

/** The process a path leads to (the root for an empty path) and the requirements in effect for it. */
export function locateProcess(
  root: CwlProcess,
  path: readonly string[],
  jobRequirements: readonly Requirement[],
): { process: CwlProcess; requirements: EffectiveRequirements } {
  if (path.length === 0) return { process: root, requirements: effectiveRequirements([], undefined, root, jobRequirements) };
  const { chain, workflow, step } = locateStep(root, path);
  return { process: step.run, requirements: effectiveRequirements([...chain, workflow], step, step.run, jobRequirements) };
}
