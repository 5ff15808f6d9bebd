import type { CwlIssue } from '../errors.js';
import type { JsonMap } from '../expressions/index.js';
import type { CwlOutputObject, CwlValue, OutputParameter } from '../model.js';
import { coerceValue } from '../types/coerce.js';
import { ToolRunError } from './errors.js';

/**
 * Checks every declared output against its type and returns the output object in the model's form (Files
 * normalized, enum symbols short, records with their declared fields). A required output that is missing (or
 * null) is an error naming it (an output of type Any may be null); all problems are reported together. Keys the process does not declare are kept,
 * as cwltool keeps what cwl.output.json says.
 */
export function checkOutputs(processId: string, outputs: readonly OutputParameter[], values: JsonMap): CwlOutputObject {
  const issues: CwlIssue[] = [];
  const checked: Record<string, CwlValue> = { ...(values as Record<string, CwlValue>) };
  for (const output of outputs) {
    // An output of type Any may be null (cwltool's outputs: a step giving nothing leaves the next one its default).
    if (output.type.kind === 'Any' && (values[output.name] ?? null) === null) {
      checked[output.name] = null;
      continue;
    }
    const value = coerceValue(output.type, values[output.name] ?? null, { path: `outputs.${output.name}`, at: output.at }, { issues });
    if (value !== undefined) checked[output.name] = value;
  }
  if (issues.length > 0) throw new ToolRunError(`the outputs of ${processId} do not match their types:\n${issues.map((i) => i.message).join('\n')}`);
  return checked;
}
