import type { CwlIssue } from '../errors.js';
import { isFile, type CwlValue } from '../model.js';
import { issue, type ValuePlace } from './files.js';
import { holdsExpression } from '../uri.js';

/**
 * Knowledge of format ontologies (EDAM and the like, from a document's `$schemas`): whether a
 * format is the same as, or a subclass of, another. Reading the ontologies is I/O and belongs to
 * the engine; without one, formats must match exactly.
 */
export interface FormatOntology {
  isSubclassOf(format: string, of: string): boolean;
}

/**
 * Checks the Files of `value` (a File, or a list of them) against a parameter's `format`: each
 * File must have a format that is, or is a subclass of, one of `formats`. Formats that are
 * expressions are skipped (the engine checks them once evaluated). Reports at the File's format
 * (`inputs.reads[2].format`) and returns whether all passed.
 */
export function checkFormats(
  value: CwlValue,
  formats: readonly string[],
  place: ValuePlace,
  context: { issues: CwlIssue[]; ontology?: FormatOntology },
): boolean {
  const expected = formats.filter((f) => !holdsExpression(f));
  if (expected.length === 0 || expected.length < formats.length) return true;
  const files = Array.isArray(value) ? value.map((v, i) => [v, `${place.path}[${i}]`] as const) : [[value, place.path] as const];
  let ok = true;
  for (const [file, path] of files) {
    if (!isFile(file)) continue;
    const at = { path: `${path}.format`, at: place.at };
    if (file.format === undefined) {
      context.issues.push(issue(at, `the File has no format; expected ${expected.join(' or ')}`));
      ok = false;
    } else if (!expected.some((f) => f === file.format || context.ontology?.isSubclassOf(file.format!, f))) {
      context.issues.push(
        issue(at, `${file.format} is not ${expected.length > 1 ? 'one of ' : ''}${expected.join(', ')}${context.ontology ? ' (nor a subclass)' : ''}`),
      );
      ok = false;
    }
  }
  return ok;
}
