import type { SourcePosition } from '../errors.js';
import type { CommandLineBinding, CommandOutputBinding, CwlExpression, LoadListing, SecondaryFileSpec } from './bindings.js';
import type { ExtensionHint, Requirement } from './requirements.js';
import type { CwlType } from './types.js';
import type { CwlValue } from './values.js';

/**
 * The four CWL process classes, discriminated by `class`. Every document version (v1.0, v1.1,
 * v1.2) loads into this one v1.2 model; `cwlVersion` says what the document declared, for the few
 * run-time rules that still depend on it (see `CwlProcessBase.cwlVersion`).
 */
export type CwlProcess = CommandLineTool | ExpressionTool | Workflow | Operation;

export type CwlVersion = 'v1.0' | 'v1.1' | 'v1.2';

export interface CwlProcessBase {
  /**
   * Absolute URI: `file:///dir/tool.cwl` for a document without an `id`, `…/packed.cwl#main` for a
   * `$graph` entry, `…/wf.cwl#step1/run` for a process embedded in a step without its own id.
   */
  readonly id: string;
  /**
   * The version the document declared. The model is always v1.2's; what still differs at run
   * time (as in cwltool): v1.0 has no `runtime.exitCode` in outputEval, its default ramMin/ramMax
   * is 1024 MiB (256 from v1.1), and before v1.2 an InitialWorkDirRequirement expression result
   * is not staged as v1.2 stages it ("classic" dirents).
   */
  readonly cwlVersion: CwlVersion;
  readonly label?: string;
  /** `doc` given as a list of strings is joined with newlines. */
  readonly doc?: string;
  /** v1.2 `intent`: URIs of what the process does. */
  readonly intent: readonly string[];
  readonly inputs: readonly InputParameter[];
  readonly requirements: readonly Requirement[];
  /**
   * Hints of classes CWL defines. For a v1.0 document, cwltool's upgrade prepends
   * `LoadListingRequirement: deep_listing` and `NetworkAccess: true` (v1.0's behaviour).
   */
  readonly hints: readonly Requirement[];
  /** Hints of classes CWL does not define, kept as written (they were a warning at load). */
  readonly extensionHints: readonly ExtensionHint[];
  /** `$namespaces` of the document (prefix to URI), for format names and extensions. */
  readonly namespaces: Readonly<Record<string, string>>;
  /** `$schemas` of the document as absolute URIs (ontologies for format checks). */
  readonly schemas: readonly string[];
  /** Fields with a namespace prefix (`dct:creator`), keyed by their expanded URI. */
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly at?: SourcePosition;
}

export interface CommandLineTool extends CwlProcessBase {
  readonly class: 'CommandLineTool';
  readonly outputs: readonly CommandOutputParameter[];
  /** `baseCommand` as a list (a single string becomes a list of one). */
  readonly baseCommand: readonly string[];
  /** Plain string arguments become bindings with that string as `valueFrom`. */
  readonly arguments: readonly CommandLineBinding[];
  /**
   * File names (or expressions giving them) for the streams. An input of `type: stdin` sets
   * `stdin` to `$(inputs.NAME.path)`; an output of `type: stdout`/`stderr` sets the stream (to a
   * name derived from the tool's id when the document gives none) and globs it.
   */
  readonly stdin?: CwlExpression;
  readonly stdout?: CwlExpression;
  readonly stderr?: CwlExpression;
  readonly successCodes: readonly number[];
  readonly temporaryFailCodes: readonly number[];
  readonly permanentFailCodes: readonly number[];
}

export interface ExpressionTool extends CwlProcessBase {
  readonly class: 'ExpressionTool';
  readonly outputs: readonly OutputParameter[];
  /** Must contain an expression; it evaluates to the output object. */
  readonly expression: CwlExpression;
}

export interface Workflow extends CwlProcessBase {
  readonly class: 'Workflow';
  readonly outputs: readonly WorkflowOutputParameter[];
  readonly steps: readonly WorkflowStep[];
}

/** An abstract operation (v1.2): inputs and outputs only; a runner cannot run it by itself. */
export interface Operation extends CwlProcessBase {
  readonly class: 'Operation';
  readonly outputs: readonly OutputParameter[];
}

/** What every input and output parameter has. */
export interface ParameterBase {
  /** Absolute URI (`…/tool.cwl#reads`, `…/wf.cwl#main/reads`). */
  readonly id: string;
  /** The short name: the key in the job object and in `inputs.NAME`. */
  readonly name: string;
  readonly type: CwlType;
  readonly label?: string;
  readonly doc?: string;
  readonly secondaryFiles: readonly SecondaryFileSpec[];
  readonly streamable: boolean;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly at?: SourcePosition;
}

/**
 * An input of any process class. `inputBinding` is set on CommandLineTool inputs only (a
 * workflow input's deprecated `inputBinding: {loadContents}` is folded into `loadContents`, as is a
 * CommandLineBinding's).
 */
export interface InputParameter extends ParameterBase {
  /** URIs (prefixes expanded) or expressions; a File must match one of them. */
  readonly format?: readonly string[];
  readonly loadContents?: boolean;
  readonly loadListing?: LoadListing;
  /** Present when the document gives a default (File locations in it are absolute). */
  readonly default?: CwlValue;
  readonly inputBinding?: CommandLineBinding;
}

/** An output of an ExpressionTool or Operation (and the base of the other output kinds). */
export interface OutputParameter extends ParameterBase {
  /** A URI or an expression. */
  readonly format?: string;
}

export interface CommandOutputParameter extends OutputParameter {
  readonly outputBinding?: CommandOutputBinding;
}

export type LinkMergeMethod = 'merge_nested' | 'merge_flattened';
export type PickValueMethod = 'first_non_null' | 'the_only_non_null' | 'all_non_null';
export type ScatterMethod = 'dotproduct' | 'nested_crossproduct' | 'flat_crossproduct';

export interface WorkflowOutputParameter extends OutputParameter {
  /** Absolute ids of workflow inputs or step outputs (a single source is a list of one). */
  readonly outputSource: readonly string[];
  /** As given; cwltool's default is `merge_nested` when there is more than one source, none for one. */
  readonly linkMerge?: LinkMergeMethod;
  readonly pickValue?: PickValueMethod;
}

export interface WorkflowStep {
  /** Absolute URI (`…/wf.cwl#step1`, `…/packed.cwl#main/step1`). */
  readonly id: string;
  readonly name: string;
  readonly label?: string;
  readonly doc?: string;
  readonly in: readonly WorkflowStepInput[];
  readonly out: readonly WorkflowStepOutput[];
  /** The loaded process (from another file, from the same `$graph`, or embedded). */
  readonly run: CwlProcess;
  readonly requirements: readonly Requirement[];
  readonly hints: readonly Requirement[];
  readonly extensionHints: readonly ExtensionHint[];
  /** v1.2 conditional: the step runs when this evaluates to true. */
  readonly when?: CwlExpression;
  /** Absolute ids of this step's inputs to scatter over (empty: no scatter). */
  readonly scatter: readonly string[];
  /** Set when `scatter` has more than one input (required then); absent otherwise. */
  readonly scatterMethod?: ScatterMethod;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly at?: SourcePosition;
}

export interface WorkflowStepInput {
  /** `…#step1/reads`. */
  readonly id: string;
  /** The short name: the `run` process's input it feeds, or an extra name for `valueFrom`/`when`. */
  readonly name: string;
  /** Absolute ids of workflow inputs or step outputs; empty when the input has no source. */
  readonly source: readonly string[];
  readonly linkMerge?: LinkMergeMethod;
  readonly pickValue?: PickValueMethod;
  readonly loadContents?: boolean;
  readonly loadListing?: LoadListing;
  readonly label?: string;
  readonly default?: CwlValue;
  readonly valueFrom?: CwlExpression;
  readonly at?: SourcePosition;
}

export interface WorkflowStepOutput {
  /** `…#step1/out`. */
  readonly id: string;
  /** The `run` process's output it names. */
  readonly name: string;
}
