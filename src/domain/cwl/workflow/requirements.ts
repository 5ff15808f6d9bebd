import type { CwlProcess, Requirement, RequirementClass } from '../model.js';

/**
 * Which requirements and hints apply to a process run as a step (CWL v1.2 §Requirements and hints):
 *
 * - requirements are inherited: a workflow's apply to its steps and to the processes they run, a step's to its
 *   process and the process's own steps;
 * - the most specific declaration wins: the process's over its step's, the step's over the workflow's, an inner
 *   workflow's over an outer one's; within one list the last declaration of a class wins; hints likewise;
 * - requirements override hints: a class declared in `requirements` at any level beats a hint of it at any level,
 *   so a workflow's requirement overrides its tool's hint (the suite's `requirement_override_hints`);
 * - the job object's `cwl:requirements` count as requirements of the process the job is given to (the root), as if
 *   written there after its own, so they override the root's own declaration of their class;
 * - a CommandLineTool inherits only the classes valid for a CommandLineTool (not the workflow features).
 *
 * A winning declaration replaces the others whole: an inner ResourceRequirement that sets only coresMin does not
 * keep an outer one's ramMin, as in the reference runner.
 */

/** What declares requirements and hints: a workflow, a step, a process. */
export interface RequirementHolder {
  readonly requirements: readonly Requirement[];
  readonly hints: readonly Requirement[];
}

/** One declaration per class: the winning requirement, or the winning hint of a class nobody requires. */
export interface EffectiveRequirements {
  readonly requirements: readonly Requirement[];
  readonly hints: readonly Requirement[];
}

/** The classes a CommandLineTool may inherit from its workflow (CWL v1.2 §Requirements and hints). */
const VALID_FOR_COMMAND_LINE_TOOL: ReadonlySet<RequirementClass> = new Set<RequirementClass>([
  'InlineJavascriptRequirement',
  'SchemaDefRequirement',
  'DockerRequirement',
  'SoftwareRequirement',
  'InitialWorkDirRequirement',
  'EnvVarRequirement',
  'ShellCommandRequirement',
  'ResourceRequirement',
  'LoadListingRequirement',
  'WorkReuse',
  'NetworkAccess',
  'InplaceUpdateRequirement',
  'ToolTimeLimit',
]);

/**
 * The requirements in effect for `process` run by `step`, inside the workflows and steps of `chain` (outermost
 * first: the root workflow, the step running the next workflow, that workflow, ...). Without a step and a chain,
 * `process` is the root. Without a process, what applies to the step itself (its `valueFrom` and `when`).
 * `jobRequirements` are the job object's `cwl:requirements`, which belong to the root (the first holder).
 */
export function effectiveRequirements(
  chain: readonly RequirementHolder[],
  step: RequirementHolder | undefined,
  process: CwlProcess | undefined,
  jobRequirements: readonly Requirement[] = [],
): EffectiveRequirements {
  const levels = [...chain, ...(step ? [step] : []), ...(process ? [process] : [])];
  const declared = (list: 'requirements' | 'hints'): Requirement[] =>
    levels.flatMap((level, index) => (list === 'requirements' && index === 0 ? [...level.requirements, ...jobRequirements] : level[list]));
  const inheritable = (requirement: Requirement): boolean => process?.class !== 'CommandLineTool' || VALID_FOR_COMMAND_LINE_TOOL.has(requirement.class);
  const requirements = lastOfEachClass(declared('requirements').filter(inheritable));
  const required = new Set(requirements.map((r) => r.class));
  const hints = lastOfEachClass(declared('hints').filter(inheritable)).filter((h) => !required.has(h.class));
  return { requirements, hints };
}

/** The declaration of a class in effect and whether it is required (false: a hint), or undefined. */
export function findRequirement<C extends RequirementClass>(
  effective: EffectiveRequirements,
  cls: C,
): { requirement: Extract<Requirement, { class: C }>; required: boolean } | undefined {
  const isClass = (r: Requirement): r is Extract<Requirement, { class: C }> => r.class === cls;
  const required = effective.requirements.find(isClass);
  if (required) return { requirement: required, required: true };
  const hinted = effective.hints.find(isClass);
  return hinted ? { requirement: hinted, required: false } : undefined;
}

/** The last declaration of each class, in the order the classes first appear. */
function lastOfEachClass(declarations: readonly Requirement[]): Requirement[] {
  const last = new Map<RequirementClass, Requirement>();
  for (const declaration of declarations) last.set(declaration.class, declaration);
  return [...last.values()];
}
