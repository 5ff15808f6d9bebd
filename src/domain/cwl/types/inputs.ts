import { CwlValidationError, type CwlIssue } from '../errors.js';
import type { CwlInputObject, CwlValue, InputParameter } from '../model.js';
import { acceptsNull } from '../model.js';
import { coerceValue } from './coerce.js';
import { describeType } from './describe.js';
import { child, issue, type ValuePlace } from './files.js';
import { checkFormats, type FormatOntology } from './format.js';

/**
 * The complete input object of a process for a job: every declared input gets the job's value
 * (checked and normalized by its type, and its Files by the input's `format`), else its default,
 * else null when its type is optional; a required input without any is an error. An explicit null
 * takes the default, as in cwltool. Names the job gives that the process does not declare are left
 * out (a step's extra inputs never reach the tool). Throws one CwlValidationError naming every
 * problem by path (`inputs.reads[2].format`) and, when the job was parsed from a file, its line.
 */
export function bindInputs(
  inputs: readonly InputParameter[],
  job: Readonly<Record<string, unknown>>,
  options: { ontology?: FormatOntology } = {},
): CwlInputObject {
  const issues: CwlIssue[] = [];
  const values: Record<string, CwlValue> = {};
  const root: ValuePlace = { path: 'inputs', at: undefined };
  for (const input of inputs) {
    const given = job[input.name];
    const place = child(root, job, input.name);
    const defaulted = (given === undefined || given === null) && input.default !== undefined;
    const value = given === undefined || given === null ? fallback(input, place, issues) : given;
    if (value === undefined) continue;
    const context = options.ontology ? { issues, ontology: options.ontology } : { issues };
    const coerced = coerceValue(input.type, value, defaulted ? { path: `${place.path} (its default)`, at: input.at } : place, context);
    if (coerced === undefined) continue;
    if (input.format && !checkFormats(coerced, input.format, place, context)) continue;
    values[input.name] = coerced;
  }
  if (issues.length > 0) throw new CwlValidationError(issues);
  return values;
}

function fallback(input: InputParameter, place: ValuePlace, issues: CwlIssue[]): unknown {
  if (input.default !== undefined) return input.default;
  if (acceptsNull(input.type)) return null;
  issues.push(issue(place, `missing required input of type ${describeType(input.type)}`));
  return undefined;
}
