import type { Requirement, RequirementClass } from '../model.js';

/**
 * The requirements and hints in force for one run. A tool run alone uses its own; a workflow step's run gets the
 * ones the workflow layer merged (workflow, step and run, requirements overriding hints), so the tool semantics
 * take them as given and only look them up.
 */
export interface EffectiveRequirements {
  readonly requirements: readonly Requirement[];
  readonly hints: readonly Requirement[];
}

export type RequirementOf<C extends RequirementClass> = Extract<Requirement, { class: C }>;

export interface FoundRequirement<C extends RequirementClass> {
  readonly value: RequirementOf<C>;
  /** Under `requirements` (true) or only a hint (false). */
  readonly required: boolean;
}

/** The requirement of a class in force: the last one under `requirements`, else the last hint (cwltool's order). */
export function findRequirement<C extends RequirementClass>(effective: EffectiveRequirements, cls: C): FoundRequirement<C> | undefined {
  const required = effective.requirements.findLast((r): r is RequirementOf<C> => r.class === cls);
  if (required !== undefined) return { value: required, required: true };
  const hint = effective.hints.findLast((r): r is RequirementOf<C> => r.class === cls);
  return hint === undefined ? undefined : { value: hint, required: false };
}
