import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { CommandOutputParameter, CwlType, CwlValue, InputParameter, OutputParameter, ParameterBase } from '../model.js';
import { shortname } from '../uri.js';
import { checkFields } from './check-fields.js';
import type { NormalizeContext } from './context.js';
import { FIELDS, versionAtLeast, type FieldTable } from './fields.js';
import { readCommonParameterFields, type CommonParameterFields, type ParameterRole } from './parameter-fields.js';
import { assignDefined, RecordReader, type Json } from './read.js';
import { readType } from './types.js';

/** One parameter read: its reader (for later fields such as outputSource) and what all parameters share. */
export interface ReadParameter {
  readonly record: RecordReader;
  readonly base: ParameterBase;
  readonly common: CommonParameterFields;
  /** `stdin`, `stdout` or `stderr` when the type was that shorthand (the caller rewrites it). */
  readonly stream?: 'stdin' | 'stdout' | 'stderr';
}

/** The entries of `inputs` or `outputs` (a list after identifiers.ts), each an object with an id. */
export function parameterNodes(process: RecordReader, key: 'inputs' | 'outputs'): Json[] {
  const list = process.required(key) === undefined ? [] : (process.list(key) ?? []);
  const nodes: Json[] = [];
  const names = new Map<string, number>();
  list.forEach((item, index) => {
    const at = positionOf(list, index);
    if (!isPlainObject(item)) return process.context.diagnostics.error(`each of '${key}' must be an object, not ${describeValue(item)}`, at);
    if (typeof item.id !== 'string') return process.context.diagnostics.error(`an entry of '${key}' of ${process.what} has no id`, at);
    const name = shortname(item.id);
    if (names.has(name)) process.context.diagnostics.error(`${key === 'inputs' ? 'input' : 'output'} '${name}' is declared twice`, at);
    names.set(name, index);
    nodes.push(item);
  });
  return nodes;
}

/**
 * What every parameter has. `streams` lists the type shorthands the caller accepts (`stdin` on a
 * CommandLineTool input from v1.1, `stdout`/`stderr` on its outputs): such a parameter reads as a
 * File, and the caller completes it.
 */
export function readParameter(
  node: Json,
  role: ParameterRole,
  table: FieldTable,
  context: NormalizeContext,
  streams: readonly ('stdin' | 'stdout' | 'stderr')[] = [],
): ReadParameter | undefined {
  const id = node.id as string;
  const name = shortname(id);
  const side = role === 'commandInput' || role === 'input' ? 'input' : 'output';
  const record = new RecordReader(node, `${side} '${name}'`, context);
  const extensions = checkFields(record, table);
  const rawType = record.required('type');
  const stream = typeof rawType === 'string' && (streams as readonly string[]).includes(rawType) ? (rawType as ReadParameter['stream']) : undefined;
  const type: CwlType | undefined = stream ? { kind: 'File' } : readType(rawType, record.at('type'), role, id, context);
  const common = readCommonParameterFields(record, role);
  if (!type) return undefined;
  const base = assignDefined<ParameterBase>(
    { id, name, type, secondaryFiles: common.secondaryFiles, streamable: common.streamable, extensions },
    { label: common.label, doc: common.doc, at: record.at() },
  );
  return stream ? { record, base, common, stream } : { record, base, common };
}

/** An input of any process class; `stdin` is returned apart for the CommandLineTool to set. */
export function readInput(node: Json, role: 'commandInput' | 'input', context: NormalizeContext): { input: InputParameter; stdin: boolean } | undefined {
  const table = role === 'commandInput' ? FIELDS.CommandInputParameter : FIELDS.WorkflowInputParameter;
  const streams = role === 'commandInput' && versionAtLeast(context.version, 'v1.1') ? (['stdin'] as const) : [];
  const read = readParameter(node, role, table, context, streams);
  if (!read) return undefined;
  const input = assignDefined<InputParameter>(
    { ...read.base },
    {
      format: read.common.inputFormat,
      loadContents: read.common.loadContents,
      loadListing: read.common.loadListing,
      inputBinding: read.common.inputBinding,
    },
  );
  if ('default' in node && node.default !== null) (input as { default?: CwlValue }).default = node.default as CwlValue;
  return { input, stdin: read.stream === 'stdin' };
}

/** An output of a CommandLineTool (`stdout`/`stderr` returned apart), ExpressionTool or Operation. */
export function readOutput(
  node: Json,
  processClass: 'CommandLineTool' | 'ExpressionTool' | 'Operation',
  context: NormalizeContext,
): { output: CommandOutputParameter | OutputParameter; stream?: 'stdout' | 'stderr' } | undefined {
  if (processClass === 'CommandLineTool') {
    const read = readParameter(node, 'commandOutput', FIELDS.CommandOutputParameter, context, ['stdout', 'stderr']);
    if (!read) return undefined;
    const output = assignDefined<CommandOutputParameter>({ ...read.base }, { format: read.common.outputFormat, outputBinding: read.common.outputBinding });
    return read.stream === 'stdout' || read.stream === 'stderr' ? { output, stream: read.stream } : { output };
  }
  const table = processClass === 'ExpressionTool' ? FIELDS.ExpressionToolOutputParameter : FIELDS.OperationOutputParameter;
  const read = readParameter(node, 'output', table, context);
  return read && { output: assignDefined<OutputParameter>({ ...read.base }, { format: read.common.outputFormat }) };
}
