import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { CommandLineBinding, CommandOutputBinding, LoadListing, SecondaryFileSpec } from '../model.js';
import { checkFields } from './check-fields.js';
import type { NormalizeContext } from './context.js';
import { FIELDS, versionAtLeast } from './fields.js';
import { assignDefined, RecordReader, type Json } from './read.js';
import { holdsExpression } from '../uri.js';

export const LOAD_LISTING: readonly LoadListing[] = ['no_listing', 'shallow_listing', 'deep_listing'];

/** A CommandLineBinding (`what` names it in messages) with CWL's defaults filled in, and its (deprecated) `loadContents` apart. */
export function readCommandLineBinding(
  value: Json,
  what: string,
  context: NormalizeContext,
): { binding: CommandLineBinding; loadContents: boolean | undefined } {
  const record = new RecordReader(value, what, context);
  checkFields(record, FIELDS.CommandLineBinding);
  const position = versionAtLeast(context.version, 'v1.1') ? record.numberOrExpression('position', false) : record.integer('position');
  const binding = assignDefined<CommandLineBinding>(
    { position: position ?? 0, separate: record.boolean('separate') ?? true, shellQuote: record.boolean('shellQuote') ?? true },
    { prefix: record.string('prefix'), itemSeparator: record.string('itemSeparator'), valueFrom: record.string('valueFrom') },
  );
  return { binding, loadContents: record.boolean('loadContents') };
}

export function readCommandOutputBinding(value: Json, what: string, context: NormalizeContext): CommandOutputBinding {
  const record = new RecordReader(value, `the outputBinding of ${what}`, context);
  checkFields(record, FIELDS.CommandOutputBinding);
  // v1.0 allowed any string; v1.1 made outputEval an Expression.
  const outputEval = versionAtLeast(context.version, 'v1.1') ? record.expression('outputEval') : record.string('outputEval');
  return assignDefined<CommandOutputBinding>(
    { glob: record.strings('glob') ?? [] },
    { loadContents: record.boolean('loadContents'), loadListing: record.oneOf('loadListing', LOAD_LISTING), outputEval },
  );
}

/**
 * `secondaryFiles` in any of its forms, expanded to specs. v1.0 has only patterns (strings or
 * expressions, cwltool's upgrade wraps them); v1.1 added SecondaryFileSchema objects and the `?`
 * suffix for an optional file. `required` defaults to true on inputs, false on outputs.
 */
export function readSecondaryFiles(record: RecordReader, key: string, input: boolean): SecondaryFileSpec[] {
  const value = record.get(key);
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  const modern = versionAtLeast(record.context.version, 'v1.1');
  const specs: SecondaryFileSpec[] = [];
  items.forEach((item, index) => {
    const at = Array.isArray(value) ? positionOf(value, index) : record.at(key);
    if (typeof item === 'string') {
      const optional = modern && item.endsWith('?') && !holdsExpression(item);
      specs.push({ pattern: optional ? item.slice(0, -1) : item, required: optional ? false : input });
    } else if (isPlainObject(item) && modern) {
      const spec = new RecordReader(item, `a secondaryFiles entry of ${record.what}`, record.context);
      checkFields(spec, FIELDS.SecondaryFileSchema);
      const pattern = spec.required('pattern') === undefined ? undefined : spec.string('pattern');
      if (pattern !== undefined) specs.push({ pattern, required: spec.booleanOrExpression('required') ?? input });
    } else {
      const expected = modern ? 'a pattern, an expression or {pattern, required}' : 'a pattern or an expression (objects came in v1.1)';
      record.context.diagnostics.error(`'${key}' of ${record.what} must be ${expected}, not ${describeValue(item)}`, at);
    }
  });
  return specs;
}
