import type { CommandLineBinding, CommandOutputBinding, LoadListing, SecondaryFileSpec } from '../model.js';
import { checkFields } from './check-fields.js';
import { LOAD_LISTING, readCommandLineBinding, readCommandOutputBinding, readSecondaryFiles } from './bindings.js';
import { FIELDS } from './fields.js';
import { assignDefined, RecordReader } from './read.js';

/**
 * Which schema a parameter or record field follows: a CommandLineTool's inputs and outputs have
 * bindings; other processes' inputs have none (a deprecated `inputBinding: {loadContents}` aside).
 */
export type ParameterRole = 'commandInput' | 'input' | 'commandOutput' | 'output';

export const isInputRole = (role: ParameterRole): boolean => role === 'commandInput' || role === 'input';

/** The fields parameters and record fields share. */
export interface CommonParameterFields {
  label?: string;
  doc?: string;
  secondaryFiles: SecondaryFileSpec[];
  streamable: boolean;
  inputFormat?: string[];
  outputFormat?: string;
  loadContents?: boolean;
  loadListing?: LoadListing;
  inputBinding?: CommandLineBinding;
  outputBinding?: CommandOutputBinding;
}

export function readCommonParameterFields(record: RecordReader, role: ParameterRole): CommonParameterFields {
  const input = isInputRole(role);
  const out = assignDefined<CommonParameterFields>(
    { secondaryFiles: readSecondaryFiles(record, 'secondaryFiles', input), streamable: record.boolean('streamable') ?? false },
    { label: record.string('label'), doc: record.doc() },
  );
  if (input) assignDefined(out, { inputFormat: record.strings('format'), loadListing: record.oneOf('loadListing', LOAD_LISTING) });
  else assignDefined(out, { outputFormat: record.string('format') });
  let loadContents = input ? record.boolean('loadContents') : undefined;
  const inputBinding = record.object('inputBinding');
  if (inputBinding && role === 'commandInput') {
    const read = readCommandLineBinding(inputBinding, `the inputBinding of ${record.what}`, record.context);
    out.inputBinding = read.binding;
    loadContents ??= read.loadContents;
  } else if (inputBinding && role === 'input') {
    loadContents ??= readInputBinding(new RecordReader(inputBinding, `the inputBinding of ${record.what}`, record.context));
  }
  if (loadContents !== undefined) out.loadContents = loadContents;
  const outputBinding = record.object('outputBinding');
  if (outputBinding && role === 'commandOutput') out.outputBinding = readCommandOutputBinding(outputBinding, record.what, record.context);
  else if (outputBinding) record.warn(`'outputBinding' of ${record.what} is ignored (it only applies to CommandLineTool outputs)`, 'outputBinding');
  return out;
}

/**
 * A Workflow's or ExpressionTool's `inputBinding`: only `loadContents` means anything. In v1.0 it
 * could carry command-line fields, which cwltool's upgrade drops with a warning; later versions
 * reject them.
 */
function readInputBinding(record: RecordReader): boolean | undefined {
  if (record.context.version === 'v1.0') {
    for (const key of Object.keys(record.node)) {
      if (key !== 'loadContents') record.warn(`field '${key}' of ${record.what} is ignored (only loadContents applies outside a CommandLineTool)`, key);
    }
  } else {
    checkFields(record, FIELDS.InputBinding);
  }
  return record.boolean('loadContents');
}
