import type { CwlIssue } from '../errors.js';
import type { CwlOutputObject, CwlValue, Workflow } from '../model.js';
import { acceptsNull } from '../model.js';
import { coerceValue } from '../types/coerce.js';
import { describeType } from '../types/describe.js';
import type { FormatOntology } from '../types/format.js';
import { WorkflowRunError } from './errors.js';
import { mergeLinks } from './link-merge.js';
import type { ValuesOf } from './step-inputs.js';

/**
 * A workflow's output object once its steps have ended (CWL v1.2 §WorkflowOutputParameter): each output takes its
 * `outputSource` values, merged and picked as a step input's are (`linkMerge`, `pickValue`); a source without a
 * value (a skipped step's output) is null. Each value is then checked against the output's declared type and
 * normalized by it (File fields, enum symbols by their short name): a null where the type is not optional, or a
 * list where a single value is declared (`pickValue: all_non_null` into a `string`), fails the workflow, naming
 * every output that does not match.
 */
export function resolveWorkflowOutputs(workflow: Workflow, valuesOf: ValuesOf, options: { ontology?: FormatOntology } = {}): CwlOutputObject {
  const outputs: Record<string, CwlValue> = {};
  const problems: string[] = [];
  for (const output of workflow.outputs) {
    const what = `output '${output.name}'`;
    const values = output.outputSource.map((id) => valuesOf(id) ?? null);
    const value = values.length === 0 ? null : mergeLinks(values, output, what);
    if (value === null && !acceptsNull(output.type)) {
      problems.push(`${what} is null, but its type ${describeType(output.type)} is not optional`);
      continue;
    }
    const issues: CwlIssue[] = [];
    const context = options.ontology ? { issues, ontology: options.ontology } : { issues };
    const coerced = coerceValue(output.type, value, { path: `outputs.${output.name}`, at: undefined }, context);
    if (coerced === undefined) problems.push(...issues.map((i) => i.message));
    else outputs[output.name] = coerced;
  }
  if (problems.length > 0) throw new WorkflowRunError(`the workflow's outputs do not match their types:\n${problems.join('\n')}`);
  return outputs;
}
