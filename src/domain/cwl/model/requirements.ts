import type { SourcePosition } from '../errors.js';
import type { CwlExpression, LoadListing } from './bindings.js';
import type { ArrayType, EnumType, RecordType } from './types.js';
import type { CwlDirectory, CwlFile } from './values.js';

/**
 * Requirements and hints, one interface per class, discriminated by `class`. They are kept as the
 * document wrote them on the process (or step) that declares them: inheritance (a workflow's
 * requirements apply to its steps, a step's to its `run`, requirements override hints) is the
 * engine's to apply. Documents written for v1.0 get the hints cwltool's upgrade adds (see
 * `CwlProcessBase.hints`).
 */
export type Requirement =
  | InlineJavascriptRequirement
  | SchemaDefRequirement
  | LoadListingRequirement
  | DockerRequirement
  | SoftwareRequirement
  | InitialWorkDirRequirement
  | EnvVarRequirement
  | ShellCommandRequirement
  | ResourceRequirement
  | WorkReuse
  | NetworkAccess
  | InplaceUpdateRequirement
  | ToolTimeLimit
  | SubworkflowFeatureRequirement
  | ScatterFeatureRequirement
  | MultipleInputFeatureRequirement
  | StepInputExpressionRequirement;

export type RequirementClass = Requirement['class'];

interface RequirementBase {
  /** Where the requirement is written (for messages such as "needs DockerRequirement, not supported"). */
  readonly at?: SourcePosition;
}

export interface InlineJavascriptRequirement extends RequirementBase {
  readonly class: 'InlineJavascriptRequirement';
  /** JavaScript to load before every expression (`$include`d files already read). */
  readonly expressionLib: readonly string[];
}

export interface SchemaDefRequirement extends RequirementBase {
  readonly class: 'SchemaDefRequirement';
  /** The named types it defines (references to them are already resolved in the model). */
  readonly types: readonly (RecordType | EnumType | ArrayType)[];
}

export interface LoadListingRequirement extends RequirementBase {
  readonly class: 'LoadListingRequirement';
  readonly loadListing?: LoadListing;
}

export interface DockerRequirement extends RequirementBase {
  readonly class: 'DockerRequirement';
  readonly dockerPull?: string;
  readonly dockerLoad?: string;
  readonly dockerFile?: string;
  readonly dockerImport?: string;
  readonly dockerImageId?: string;
  readonly dockerOutputDirectory?: string;
}

export interface SoftwarePackage {
  readonly package: string;
  readonly version: readonly string[];
  readonly specs: readonly string[];
}

export interface SoftwareRequirement extends RequirementBase {
  readonly class: 'SoftwareRequirement';
  readonly packages: readonly SoftwarePackage[];
}

/** One item of InitialWorkDirRequirement's listing. */
export type InitialWorkDirEntry =
  | { readonly kind: 'dirent'; readonly entryname?: CwlExpression; readonly entry: CwlExpression; readonly writable: boolean }
  | { readonly kind: 'file'; readonly value: CwlFile | CwlDirectory }
  /** An expression giving a File, a Directory, a Dirent-like object or a list of them. */
  | { readonly kind: 'expression'; readonly expression: CwlExpression };

export interface InitialWorkDirRequirement extends RequirementBase {
  readonly class: 'InitialWorkDirRequirement';
  /** A list of entries, or one expression giving the whole listing. */
  readonly listing: readonly InitialWorkDirEntry[] | { readonly expression: CwlExpression };
}

export interface EnvironmentDef {
  readonly envName: string;
  readonly envValue: CwlExpression;
}

export interface EnvVarRequirement extends RequirementBase {
  readonly class: 'EnvVarRequirement';
  readonly envDef: readonly EnvironmentDef[];
}

export interface ShellCommandRequirement extends RequirementBase {
  readonly class: 'ShellCommandRequirement';
}

/** A number, or an expression giving one. v1.0 and v1.1 allow whole numbers only. */
export type ResourceAmount = number | CwlExpression;

export interface ResourceRequirement extends RequirementBase {
  readonly class: 'ResourceRequirement';
  readonly coresMin?: ResourceAmount;
  readonly coresMax?: ResourceAmount;
  /** Mebibytes (2^20 bytes), like the other ram/tmpdir/outdir amounts. */
  readonly ramMin?: ResourceAmount;
  readonly ramMax?: ResourceAmount;
  readonly tmpdirMin?: ResourceAmount;
  readonly tmpdirMax?: ResourceAmount;
  readonly outdirMin?: ResourceAmount;
  readonly outdirMax?: ResourceAmount;
}

export interface WorkReuse extends RequirementBase {
  readonly class: 'WorkReuse';
  readonly enableReuse: boolean | CwlExpression;
}

export interface NetworkAccess extends RequirementBase {
  readonly class: 'NetworkAccess';
  readonly networkAccess: boolean | CwlExpression;
}

export interface InplaceUpdateRequirement extends RequirementBase {
  readonly class: 'InplaceUpdateRequirement';
  readonly inplaceUpdate: boolean;
}

export interface ToolTimeLimit extends RequirementBase {
  readonly class: 'ToolTimeLimit';
  /** Seconds; 0 means no limit. A literal is checked to be non-negative at load. */
  readonly timelimit: number | CwlExpression;
}

export interface SubworkflowFeatureRequirement extends RequirementBase {
  readonly class: 'SubworkflowFeatureRequirement';
}

export interface ScatterFeatureRequirement extends RequirementBase {
  readonly class: 'ScatterFeatureRequirement';
}

export interface MultipleInputFeatureRequirement extends RequirementBase {
  readonly class: 'MultipleInputFeatureRequirement';
}

export interface StepInputExpressionRequirement extends RequirementBase {
  readonly class: 'StepInputExpressionRequirement';
}

/**
 * A hint whose class CWL does not define (a vendor extension such as `ex:GPURequirement`): kept
 * so that nothing is lost, with the class as an absolute URI when it had a namespace prefix.
 * Such a class in `requirements` is a load error instead.
 */
export interface ExtensionHint {
  readonly class: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly at?: SourcePosition;
}
