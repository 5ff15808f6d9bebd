import type { Diagnostics } from '../errors.js';
import type { CwlProcess, Requirement, RequirementClass, WorkflowStep } from '../model.js';

/**
 * The feature requirements a workflow must declare for what it uses (CWL v1.2 §Workflow), checked
 * with inheritance: what a workflow requires or hints applies to its steps and to the processes
 * they run. cwltool refuses a subworkflow or a scatter without its requirement at load and the
 * other two when the step runs; gdflow refuses all four at load, where the message can point at
 * the step.
 */
export function checkFeatureRequirements(process: CwlProcess, diagnostics: Diagnostics, inherited: readonly Requirement[] = []): void {
  if (process.class !== 'Workflow') return;
  const available = [...inherited, ...process.requirements, ...process.hints];
  for (const step of process.steps) {
    const forStep = [...available, ...step.requirements, ...step.hints];
    for (const [feature, used] of featuresUsed(step)) {
      if (used && !forStep.some((r) => r.class === feature)) {
        diagnostics.error(`step '${step.name}' ${FEATURE_USE[feature]} but ${feature} is not among the workflow's requirements`, step.at);
      }
    }
    checkFeatureRequirements(step.run, diagnostics, forStep);
  }
  const merged = process.outputs.find((o) => o.outputSource.length > 1);
  if (merged && !available.some((r) => r.class === 'MultipleInputFeatureRequirement')) {
    diagnostics.error(
      `output '${merged.name}' has several outputSources but MultipleInputFeatureRequirement is not among the workflow's requirements`,
      merged.at,
    );
  }
}

type Feature = Extract<
  RequirementClass,
  'SubworkflowFeatureRequirement' | 'ScatterFeatureRequirement' | 'MultipleInputFeatureRequirement' | 'StepInputExpressionRequirement'
>;

const FEATURE_USE: Readonly<Record<Feature, string>> = {
  SubworkflowFeatureRequirement: 'runs a workflow',
  ScatterFeatureRequirement: 'scatters',
  MultipleInputFeatureRequirement: 'has an input with several sources',
  StepInputExpressionRequirement: 'has an input with valueFrom',
};

function featuresUsed(step: WorkflowStep): [Feature, boolean][] {
  return [
    ['SubworkflowFeatureRequirement', step.run.class === 'Workflow'],
    ['ScatterFeatureRequirement', step.scatter.length > 0],
    ['MultipleInputFeatureRequirement', step.in.some((i) => i.source.length > 1)],
    ['StepInputExpressionRequirement', step.in.some((i) => i.valueFrom !== undefined)],
  ];
}
