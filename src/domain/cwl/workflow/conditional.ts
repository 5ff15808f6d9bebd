import type { CwlInputObject, CwlOutputObject, WorkflowStep } from '../model.js';
import { describeValue } from '../types/describe.js';
import { WorkflowRunError } from './errors.js';
import { evaluateStepExpression, type StepOptions } from './step-expressions.js';

/**
 * Conditional execution (CWL v1.2 §WorkflowStep): `when` is evaluated with `inputs` the step's input object after
 * `valueFrom` (for a scatter, each instance's), including the `in` entries the process does not declare. A step
 * without `when` runs. A result that is not true or false is an error, not a truthiness test.
 */
export async function evaluateWhen(step: WorkflowStep, inputs: CwlInputObject, options: StepOptions): Promise<boolean> {
  if (step.when === undefined) return true;
  const result = await evaluateStepExpression(step.when, inputs, null, options, `step '${step.name}', when`);
  if (typeof result === 'boolean') return result;
  throw new WorkflowRunError(`step '${step.name}': 'when' must give true or false, but ${step.when} gave ${describeValue(result)}`);
}

/** The outputs of a skipped step (or scatter instance): null for each of its `out`. */
export function skippedOutputs(step: WorkflowStep): CwlOutputObject {
  return Object.fromEntries(step.out.map((out) => [out.name, null]));
}
