import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { CommandLineBinding, CommandLineTool, CwlProcess, CwlProcessBase, InputParameter, OutputParameter, Requirement } from '../model.js';
import { nearest } from '../suggest.js';
import { CWL_NAMESPACE, expandPrefix } from '../uri.js';
import { readCommandLineBinding } from './bindings.js';
import { checkFields } from './check-fields.js';
import type { NormalizeContext } from './context.js';
import { FIELDS, versionAtLeast } from './fields.js';
import { parameterNodes, readInput, readOutput } from './parameters.js';
import { assignDefined, RecordReader, type Json } from './read.js';
import { readRequirements } from './requirements.js';
import { readWorkflow } from './workflow.js';

export const PROCESS_CLASSES = ['CommandLineTool', 'ExpressionTool', 'Workflow', 'Operation'] as const;
type ProcessClass = (typeof PROCESS_CLASSES)[number];

/**
 * One process node (identifiers resolved) as the model's process, checked against the schema of
 * `context.version`. `topLevel` marks a document's own process (or `$graph` entry), which gets
 * cwltool's v1.0 upgrade hints; an embedded one inherits them from its parent.
 */
export function normalizeProcess(node: Json, context: NormalizeContext, topLevel: boolean): CwlProcess | undefined {
  const cls = processClass(node, context);
  if (cls === undefined) return undefined;
  const record = new RecordReader(node, cls, context);
  const extensions = checkFields(record, FIELDS[cls]);
  const requirements = readRequirements(record, 'requirements');
  const hints = readRequirements(record, 'hints');
  const base: Omit<CwlProcessBase, 'inputs'> = assignDefined<Omit<CwlProcessBase, 'inputs'>>(
    {
      id: node.id as string,
      cwlVersion: context.version,
      intent: (record.strings('intent') ?? []).map((uri) => expandPrefix(uri, context.namespaces)),
      requirements: requirements.known,
      hints: topLevel && context.version === 'v1.0' ? [...V10_HINTS, ...hints.known] : hints.known,
      extensionHints: hints.extensions,
      namespaces: context.namespaces,
      schemas: context.schemas,
      extensions,
    },
    { label: record.string('label'), doc: record.doc(), at: record.at() },
  );
  const role = cls === 'CommandLineTool' ? 'commandInput' : 'input';
  const inputs: InputParameter[] = [];
  const stdinInputs: string[] = [];
  for (const input of parameterNodes(record, 'inputs')) {
    const read = readInput(input, role, context);
    if (read) inputs.push(read.input);
    if (read?.stdin) stdinInputs.push(read.input.name);
  }
  switch (cls) {
    case 'CommandLineTool':
      return commandLineTool(record, { ...base, inputs }, stdinInputs);
    case 'ExpressionTool': {
      // v1.0 allowed any string; v1.1 made `expression` an Expression.
      const expression = versionAtLeast(context.version, 'v1.1') ? record.expression('expression') : record.string('expression');
      if (record.required('expression') === undefined || expression === undefined) return undefined;
      return { ...base, class: cls, inputs, outputs: plainOutputs(record, cls), expression };
    }
    case 'Operation':
      return { ...base, class: cls, inputs, outputs: plainOutputs(record, cls) };
    case 'Workflow': {
      const workflow = readWorkflow(record, inputs);
      return workflow && { ...base, class: cls, inputs, ...workflow };
    }
  }
}

/** What cwltool's v1.0 -> v1.1 upgrade prepends to a v1.0 process's hints: v1.0's behaviour. */
const V10_HINTS: readonly Requirement[] = [
  { class: 'LoadListingRequirement', loadListing: 'deep_listing' },
  { class: 'NetworkAccess', networkAccess: true },
];

function processClass(node: Json, context: NormalizeContext): ProcessClass | undefined {
  const at = positionOf(node, 'class');
  if (typeof node.class !== 'string') {
    context.diagnostics.error(`a process needs a 'class' (one of ${PROCESS_CLASSES.join(', ')}), not ${describeValue(node.class)}`, at ?? positionOf(node));
    return undefined;
  }
  const expanded = expandPrefix(node.class, context.namespaces);
  const cls = expanded.startsWith(CWL_NAMESPACE) ? expanded.slice(CWL_NAMESPACE.length) : expanded;
  if (!(PROCESS_CLASSES as readonly string[]).includes(cls)) {
    const suggestion = nearest(cls, PROCESS_CLASSES);
    context.diagnostics.error(`unknown process class '${node.class}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, at);
    return undefined;
  }
  if (cls === 'Operation' && !versionAtLeast(context.version, 'v1.2')) {
    context.diagnostics.error(`class Operation is not part of CWL ${context.version} (it was added in v1.2)`, at);
    return undefined;
  }
  return cls as ProcessClass;
}

function plainOutputs(record: RecordReader, cls: 'ExpressionTool' | 'Operation'): OutputParameter[] {
  return parameterNodes(record, 'outputs').flatMap((node) => readOutput(node, cls, record.context)?.output ?? []);
}

function commandLineTool(
  record: RecordReader,
  base: Omit<CommandLineTool, 'class' | 'outputs' | 'baseCommand' | 'arguments' | 'successCodes' | 'temporaryFailCodes' | 'permanentFailCodes'>,
  stdinInputs: string[],
): CommandLineTool {
  const streams: { stdin?: string; stdout?: string; stderr?: string } = assignDefined(
    {},
    { stdin: record.string('stdin'), stdout: record.string('stdout'), stderr: record.string('stderr') },
  );
  if (stdinInputs.length > 0) {
    if (streams.stdin !== undefined || stdinInputs.length > 1) {
      record.error(`stdin is given more than once (field 'stdin' and inputs of type stdin: ${stdinInputs.join(', ')})`, 'stdin');
    }
    streams.stdin = `$(inputs.${stdinInputs[0]}.path)`;
  }
  const outputs = parameterNodes(record, 'outputs').flatMap((node) => {
    const read = readOutput(node, 'CommandLineTool', record.context);
    if (!read) return [];
    if (!read.stream) return [read.output];
    const file = (streams[read.stream] ??= generatedStreamName(base.id, read.stream));
    return [{ ...read.output, outputBinding: { glob: [file] } }];
  });
  return assignDefined<CommandLineTool>(
    {
      ...base,
      class: 'CommandLineTool',
      outputs,
      baseCommand: record.strings('baseCommand') ?? [],
      arguments: readArguments(record),
      successCodes: record.integers('successCodes') ?? [],
      temporaryFailCodes: record.integers('temporaryFailCodes') ?? [],
      permanentFailCodes: record.integers('permanentFailCodes') ?? [],
    },
    streams,
  );
}

/** `arguments`: a string is a binding whose valueFrom is that string (cwltool binds it at position 0). */
function readArguments(record: RecordReader): CommandLineBinding[] {
  const list = record.list('arguments') ?? [];
  return list.flatMap((item, index) => {
    if (typeof item === 'string') return [{ position: 0, separate: true, shellQuote: true, valueFrom: item }];
    if (isPlainObject(item)) return [readCommandLineBinding(item, `argument ${index + 1}`, record.context).binding];
    record.context.diagnostics.error(`each argument must be a string or a CommandLineBinding, not ${describeValue(item)}`, positionOf(list, index));
    return [];
  });
}

/**
 * The file name for an output of `type: stdout` when the tool names none: stable for a given tool
 * (cwltool hashes the tool too), so that reruns and call caching see the same command.
 */
function generatedStreamName(toolId: string, stream: 'stdout' | 'stderr'): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(`${toolId}#${stream}`)) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  }
  return `${stream}-${hash.toString(16).padStart(16, '0')}`;
}
