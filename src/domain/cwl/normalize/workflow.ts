import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { SourcePosition } from '../errors.js';
import type {
  CwlValue,
  InputParameter,
  LinkMergeMethod,
  PickValueMethod,
  ScatterMethod,
  WorkflowOutputParameter,
  WorkflowStep,
  WorkflowStepInput,
  WorkflowStepOutput,
} from '../model.js';
import { acceptsNull } from '../model.js';
import { nearest } from '../suggest.js';
import { isAbsoluteUri, scopedCandidates, shortname } from '../uri.js';
import { LOAD_LISTING } from './bindings.js';
import { checkFields } from './check-fields.js';
import type { NormalizeContext } from './context.js';
import { FIELDS } from './fields.js';
import { parameterNodes, readParameter } from './parameters.js';
import { assignDefined, RecordReader, type Json } from './read.js';
import { readRequirements } from './requirements.js';

const LINK_MERGE: readonly LinkMergeMethod[] = ['merge_nested', 'merge_flattened'];
const PICK_VALUE: readonly PickValueMethod[] = ['first_non_null', 'the_only_non_null', 'all_non_null'];
const SCATTER_METHOD: readonly ScatterMethod[] = ['dotproduct', 'nested_crossproduct', 'flat_crossproduct'];

/**
 * A Workflow's steps and outputs. Every `source` and `outputSource` must name a workflow input or a
 * step output of this workflow (looked up as schema-salad does: refScope 2 from a step input,
 * 1 from an output); every `scatter` an input of its step; every step `out` an output of the step's
 * process; and every required input of that process must be fed, as cwltool checks at load.
 */
export function readWorkflow(
  record: RecordReader,
  inputs: readonly InputParameter[],
): { outputs: WorkflowOutputParameter[]; steps: WorkflowStep[] } | undefined {
  const context = record.context;
  const stepNodes = stepList(record);
  const steps = stepNodes.flatMap((node) => readStep(node, context) ?? []);
  reportRepeats(steps, 'step', record);
  const sources = new Set<string>([...inputs.map((i) => i.id), ...steps.flatMap((s) => s.out.map((o) => o.id))]);
  const linked = steps.map((step) => ({
    ...step,
    in: step.in.map((input) => ({
      ...input,
      source: resolveReferences(input.source, { referrer: input.id, refScope: 2, valid: sources, field: 'source', at: input.at }, context),
    })),
  }));
  const outputs = parameterNodes(record, 'outputs').flatMap((node) => {
    const read = readParameter(node, 'output', FIELDS.WorkflowOutputParameter, context);
    if (!read) return [];
    const raw = read.record.strings('outputSource') ?? [];
    return [
      assignDefined<WorkflowOutputParameter>(
        {
          ...read.base,
          outputSource: resolveReferences(
            raw,
            { referrer: read.base.id, refScope: 1, valid: sources, field: 'outputSource', at: read.record.at('outputSource') },
            context,
          ),
        },
        {
          format: read.common.outputFormat,
          linkMerge: read.record.oneOf('linkMerge', LINK_MERGE),
          pickValue: read.record.oneOf('pickValue', PICK_VALUE),
        },
      ),
    ];
  });
  return { outputs, steps: linked };
}

function stepList(record: RecordReader): Json[] {
  const list = record.required('steps') === undefined ? [] : (record.list('steps') ?? []);
  return list.filter((item, index): item is Json => {
    if (isPlainObject(item) && typeof item.id === 'string') return true;
    record.context.diagnostics.error(`each step must be an object with an id, not ${describeValue(item)}`, positionOf(list, index));
    return false;
  });
}

function readStep(node: Json, context: NormalizeContext): WorkflowStep | undefined {
  const id = node.id as string;
  const record = new RecordReader(node, `step '${shortname(id)}'`, context);
  const extensions = checkFields(record, FIELDS.WorkflowStep);
  const stepIn = (record.list('in') ?? []).flatMap((item, index) => readStepInput(item, positionOf(node.in, index), context) ?? []);
  const out = readStepOutputs(record);
  reportRepeats(stepIn, 'input', record);
  reportRepeats(out, 'output', record);
  const requirements = readRequirements(record, 'requirements');
  const hints = readRequirements(record, 'hints');
  const runValue = record.required('run');
  const run =
    typeof runValue === 'string'
      ? context.runProcess(runValue, record.at('run'))
      : isPlainObject(runValue)
        ? context.embeddedProcess(runValue)
        : runValue === undefined
          ? undefined
          : record.error(`'run' of ${record.what} must be a URI or a process, not ${describeValue(runValue)}`, 'run');
  const scatterNames = record.strings('scatter') ?? [];
  const inIds = new Set(stepIn.map((i) => i.id));
  const scatter = resolveReferences(scatterNames, { referrer: id, refScope: 0, valid: inIds, field: 'scatter', at: record.at('scatter') }, context);
  const scatterMethod = record.oneOf('scatterMethod', SCATTER_METHOD);
  if (scatter.length > 1 && scatterMethod === undefined) record.error(`${record.what} scatters over more than one input and needs a scatterMethod`, 'scatter');
  if (!run) return undefined;
  checkStepAgainstRun(record, run, stepIn, out);
  return assignDefined<WorkflowStep>(
    {
      id,
      name: shortname(id),
      in: stepIn,
      out,
      run,
      requirements: requirements.known,
      hints: hints.known,
      extensionHints: hints.extensions,
      scatter,
      extensions,
    },
    {
      label: record.string('label'),
      doc: record.doc(),
      when: record.expression('when'),
      scatterMethod: scatter.length > 1 ? scatterMethod : undefined,
      at: record.at(),
    },
  );
}

function readStepInput(item: unknown, at: SourcePosition | undefined, context: NormalizeContext): WorkflowStepInput | undefined {
  if (!isPlainObject(item) || typeof item.id !== 'string') {
    context.diagnostics.error(`each step input must be an object with an id, not ${describeValue(item)}`, at);
    return undefined;
  }
  const record = new RecordReader(item, `step input '${shortname(item.id)}'`, context);
  checkFields(record, FIELDS.WorkflowStepInput);
  const input = assignDefined<WorkflowStepInput>(
    { id: item.id, name: shortname(item.id), source: record.strings('source') ?? [] },
    {
      linkMerge: record.oneOf('linkMerge', LINK_MERGE),
      pickValue: record.oneOf('pickValue', PICK_VALUE),
      loadContents: record.boolean('loadContents'),
      loadListing: record.oneOf('loadListing', LOAD_LISTING),
      label: record.string('label'),
      valueFrom: record.string('valueFrom'),
      at: record.at(),
    },
  );
  if ('default' in item && item.default !== null) (input as { default?: CwlValue }).default = item.default as CwlValue;
  return input;
}

function readStepOutputs(record: RecordReader): WorkflowStepOutput[] {
  const list = record.required('out') === undefined ? [] : (record.list('out') ?? []);
  return list.flatMap((item, index) => {
    if (typeof item === 'string') return [{ id: item, name: shortname(item) }];
    if (isPlainObject(item) && typeof item.id === 'string') {
      checkFields(new RecordReader(item, 'a step output', record.context), FIELDS.WorkflowStepOutput);
      return [{ id: item.id, name: shortname(item.id) }];
    }
    record.context.diagnostics.error(`each of 'out' must be a name or {id: name}, not ${describeValue(item)}`, positionOf(list, index));
    return [];
  });
}

/** cwltool's load-time step checks: outputs the process has, and every required process input fed. */
function checkStepAgainstRun(
  record: RecordReader,
  run: NonNullable<WorkflowStep['run']>,
  stepIn: readonly WorkflowStepInput[],
  out: readonly WorkflowStepOutput[],
): void {
  const outputNames = run.outputs.map((o) => o.name);
  for (const output of out) {
    if (!outputNames.includes(output.name)) {
      record.error(`${record.what} output '${output.name}' is not an output of its process (expected one of: ${outputNames.join(', ') || 'none'})`, 'out');
    }
  }
  const fed = new Set(stepIn.map((i) => i.name));
  const missing = run.inputs.filter((i) => !fed.has(i.name) && !acceptsNull(i.type) && i.default === undefined).map((i) => i.name);
  if (missing.length > 0) record.error(`${record.what} is missing required input${missing.length > 1 ? 's' : ''} '${missing.join("', '")}'`, 'in');
}

/** Where the references of one field are resolved: the referring id, its refScope and the valid targets. */
interface ReferenceScope {
  readonly referrer: string;
  readonly refScope: number;
  readonly valid: ReadonlySet<string>;
  readonly field: 'source' | 'outputSource' | 'scatter';
  readonly at: SourcePosition | undefined;
}

/**
 * References (`source`, `outputSource`, `scatter`) as the absolute ids they name, searched as
 * schema-salad's refScope does, among `valid` only; an unknown one is an error naming the nearest.
 */
function resolveReferences(names: readonly string[], scope: ReferenceScope, context: NormalizeContext): string[] {
  return names.flatMap((name) => {
    const candidates = isAbsoluteUri(name) ? [name] : scopedCandidates(name, scope.referrer, scope.refScope);
    const found = candidates.find((c) => scope.valid.has(c));
    if (found) return [found];
    const suggestion = nearest(
      name,
      [...scope.valid].map((id) => relativeName(id, scope)),
    );
    const what = scope.field === 'scatter' ? 'an input of this step' : 'a workflow input or a step output';
    context.diagnostics.error(
      `'${scope.field}' of ${shortname(scope.referrer)} names '${name}', which is not ${what}${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      scope.at,
    );
    return [];
  });
}

/** `f#main/step1/out` as the referring field writes it (`step1/out`): without the scope the search starts from. */
function relativeName(id: string, scope: ReferenceScope): string {
  const segments = (uri: string): string[] => (uri.includes('#') ? uri.slice(uri.indexOf('#') + 1).split('/') : []);
  const start = Math.max(0, segments(scope.referrer).length - scope.refScope);
  return segments(id).slice(start).join('/');
}

/** A name given twice in one list (steps, a step's inputs or outputs). */
function reportRepeats(items: readonly { name: string }[], what: string, record: RecordReader): void {
  const seen = new Set<string>();
  for (const { name } of items) {
    if (seen.has(name)) record.error(`${what} '${name}' of ${record.what} is declared twice`);
    seen.add(name);
  }
}
