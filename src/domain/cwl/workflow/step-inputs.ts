import { loadContentsFor } from './load-contents.js';
import type { CwlInputObject, CwlValue, WorkflowStep } from '../model.js';
import { coerceValue } from '../types/coerce.js';
import { mergeLinks } from './link-merge.js';
import { evaluateStepExpression, type StepOptions } from './step-expressions.js';

/**
 * A step's input object (CWL v1.2 §WorkflowStepInput), in the spec's order:
 *
 * 1. `linkStepInputs`: each `in` entry takes the values of its `source` links, merged (`linkMerge`) and picked
 *    (`pickValue`); `default` when that is null or there is no source; null when there is neither;
 * 2. scatter (scatter.ts), for a step that scatters: each instance gets one element of the scattered inputs;
 * 3. `evaluateStepInputs`, on the whole object or on each instance: `loadContents`, then `valueFrom`, with `self`
 *    the input's value and `inputs` the object as it was before any `valueFrom` (so no `valueFrom` sees another's
 *    result).
 *
 * Every `in` entry is in the object, also those the step's process does not declare: `valueFrom` and `when` read
 * them, and binding the object to the process's inputs (bindInputs) leaves them out.
 */

/** The value of a workflow input or a step output, by its absolute id; undefined where there is none (null). */
export type ValuesOf = (sourceId: string) => CwlValue | undefined;

/** Step 1: the step's inputs from its data links and defaults. Pure and synchronous. */
export function linkStepInputs(step: WorkflowStep, valuesOf: ValuesOf): CwlInputObject {
  const inputs: Record<string, CwlValue> = {};
  for (const input of step.in) {
    const values = input.source.map((id) => valuesOf(id) ?? null);
    const linked = values.length === 0 ? null : mergeLinks(values, input, `input '${input.name}' of step '${step.name}'`);
    inputs[input.name] = linked === null && input.default !== undefined ? withFileFields(input.default) : linked;
  }
  return inputs;
}

/**
 * A default as a value: the Files and Directories in it get their `basename`, `nameroot` and `nameext` (a job's
 * values get them when bound), so that `valueFrom: $(self.basename)` reads a default File as it reads a given one.
 */
function withFileFields(value: CwlValue): CwlValue {
  return coerceValue({ kind: 'Any' }, value, { path: 'default', at: undefined }, { issues: [] }) ?? value;
}

/** Step 3: `loadContents`, then `valueFrom`, on an input object from step 1 (or one scatter instance of it). */
export async function evaluateStepInputs(step: WorkflowStep, inputs: CwlInputObject, options: StepOptions): Promise<CwlInputObject> {
  const loaded: Record<string, CwlValue> = { ...inputs };
  for (const input of step.in) {
    if (!input.loadContents) continue;
    if (options.contents === undefined) throw new Error(`step '${step.name}' loads the contents of '${input.name}', but no FileContentReader was given`);
    const where = `step '${step.name}', loadContents of input '${input.name}'`;
    loaded[input.name] = await loadContentsFor(where, loaded[input.name] ?? null, options.contents, options.cwlVersion);
  }
  const evaluated: Record<string, CwlValue> = { ...loaded };
  for (const input of step.in) {
    if (input.valueFrom !== undefined) {
      const where = `step '${step.name}', valueFrom of input '${input.name}'`;
      evaluated[input.name] = await evaluateStepExpression(input.valueFrom, loaded, loaded[input.name] ?? null, options, where);
    }
  }
  return evaluated;
}

/** Steps 1 and 3 for a step that does not scatter. A step that scatters goes through expandScatter in between. */
export async function resolveStepInputs(step: WorkflowStep, valuesOf: ValuesOf, options: StepOptions): Promise<CwlInputObject> {
  if (step.scatter.length > 0) throw new Error(`step '${step.name}' scatters: link its inputs, expand the scatter, then evaluate each instance`);
  return evaluateStepInputs(step, linkStepInputs(step, valuesOf), options);
}
