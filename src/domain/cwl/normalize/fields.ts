import type { CwlVersion } from '../model.js';

/**
 * The fields of each CWL record, and the version that introduced (or last had) each one, from the
 * v1.0, v1.1 and v1.2 schemas (Process.yml, CommandLineTool.yml, Workflow.yml, Operation.yml and
 * schema-salad's metaschema). A document is checked against the schema of the version it
 * declares, as cwltool checks it: a v1.0 tool that writes v1.2's `when` is invalid.
 */
export interface FieldSpec {
  readonly since: CwlVersion;
  /** The last version that has the field, when a later one removed it. */
  readonly until?: CwlVersion;
}

export type FieldTable = ReadonlyMap<string, FieldSpec>;

const VERSIONS: readonly CwlVersion[] = ['v1.0', 'v1.1', 'v1.2'];
export const versionAtLeast = (version: CwlVersion, minimum: CwlVersion): boolean => VERSIONS.indexOf(version) >= VERSIONS.indexOf(minimum);

/** `table({v1.0: 'a b', v1.1: 'c'})`: fields by the version that added them; `until` marks removed ones. */
function table(byVersion: Partial<Record<CwlVersion, string>>, removed: Partial<Record<CwlVersion, string>> = {}): FieldTable {
  const out = new Map<string, FieldSpec>();
  for (const [since, names] of Object.entries(byVersion) as [CwlVersion, string][]) {
    for (const name of names.split(/\s+/).filter(Boolean)) out.set(name, { since });
  }
  for (const [until, names] of Object.entries(removed) as [CwlVersion, string][]) {
    for (const name of names.split(/\s+/).filter(Boolean)) out.set(name, { since: 'v1.0', until });
  }
  return out;
}

const join = (...tables: FieldTable[]): FieldTable => new Map(tables.flatMap((t) => [...t]));

const PROCESS = table({ 'v1.0': 'id label doc inputs outputs requirements hints cwlVersion class', 'v1.2': 'intent' });
const PARAMETER = table({ 'v1.0': 'id label doc secondaryFiles streamable format type' });
const INPUT = join(PARAMETER, table({ 'v1.0': 'inputBinding default', 'v1.1': 'loadContents loadListing' }));

export const FIELDS = {
  CommandLineTool: join(PROCESS, table({ 'v1.0': 'baseCommand arguments stdin stdout stderr successCodes temporaryFailCodes permanentFailCodes' })),
  ExpressionTool: join(PROCESS, table({ 'v1.0': 'expression' })),
  Workflow: join(PROCESS, table({ 'v1.0': 'steps' })),
  Operation: PROCESS,
  CommandInputParameter: INPUT,
  WorkflowInputParameter: INPUT,
  CommandOutputParameter: join(PARAMETER, table({ 'v1.0': 'outputBinding' })),
  // v1.0's OutputParameter had an (empty) outputBinding that v1.1 dropped.
  ExpressionToolOutputParameter: join(PARAMETER, table({}, { 'v1.0': 'outputBinding' })),
  OperationOutputParameter: PARAMETER,
  WorkflowOutputParameter: join(PARAMETER, table({ 'v1.0': 'outputSource linkMerge', 'v1.2': 'pickValue' }, { 'v1.0': 'outputBinding' })),
  WorkflowStep: table({ 'v1.0': 'id in out requirements hints label doc run scatter scatterMethod', 'v1.2': 'when' }),
  WorkflowStepInput: table({ 'v1.0': 'id source linkMerge default valueFrom', 'v1.1': 'loadContents loadListing label', 'v1.2': 'pickValue' }),
  WorkflowStepOutput: table({ 'v1.0': 'id' }),
  CommandLineBinding: table({ 'v1.0': 'loadContents position prefix separate itemSeparator valueFrom shellQuote' }),
  CommandOutputBinding: table({ 'v1.0': 'glob loadContents outputEval', 'v1.1': 'loadListing' }),
  /** A Workflow's or ExpressionTool's input binding (v1.1 on): loadContents only. */
  InputBinding: table({ 'v1.0': 'loadContents' }),
  SecondaryFileSchema: table({ 'v1.1': 'pattern required' }),
  RecordSchema: table({ 'v1.0': 'type fields name label doc' }),
  EnumSchema: table({ 'v1.0': 'type symbols name label doc' }),
  ArraySchema: table({ 'v1.0': 'type items name label doc' }),
  RecordField: table({ 'v1.0': 'name type doc label', 'v1.1': 'secondaryFiles streamable format' }),
  InputRecordField: table({ 'v1.1': 'loadContents loadListing' }),
  Dirent: table({ 'v1.0': 'entryname entry writable' }),
  EnvironmentDef: table({ 'v1.0': 'envName envValue' }),
  SoftwarePackage: table({ 'v1.0': 'package version specs' }),
} as const;

export type RecordName = keyof typeof FIELDS;

/** The fields of each requirement class (besides `class`), and the version that introduced the class. */
export const REQUIREMENT_FIELDS: Readonly<Record<string, { since: CwlVersion; fields: FieldTable }>> = {
  InlineJavascriptRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class expressionLib' }) },
  SchemaDefRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class types' }) },
  DockerRequirement: {
    since: 'v1.0',
    fields: table({ 'v1.0': 'class dockerPull dockerLoad dockerFile dockerImport dockerImageId dockerOutputDirectory' }),
  },
  SoftwareRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class packages' }) },
  InitialWorkDirRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class listing' }) },
  EnvVarRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class envDef' }) },
  ShellCommandRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class' }) },
  ResourceRequirement: {
    since: 'v1.0',
    fields: table({ 'v1.0': 'class coresMin coresMax ramMin ramMax tmpdirMin tmpdirMax outdirMin outdirMax' }),
  },
  SubworkflowFeatureRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class' }) },
  ScatterFeatureRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class' }) },
  MultipleInputFeatureRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class' }) },
  StepInputExpressionRequirement: { since: 'v1.0', fields: table({ 'v1.0': 'class' }) },
  LoadListingRequirement: { since: 'v1.1', fields: table({ 'v1.0': 'class loadListing' }) },
  WorkReuse: { since: 'v1.1', fields: table({ 'v1.0': 'class enableReuse' }) },
  NetworkAccess: { since: 'v1.1', fields: table({ 'v1.0': 'class networkAccess' }) },
  InplaceUpdateRequirement: { since: 'v1.1', fields: table({ 'v1.0': 'class inplaceUpdate' }) },
  ToolTimeLimit: { since: 'v1.1', fields: table({ 'v1.0': 'class timelimit' }) },
};

/**
 * cwltool's extension classes that v1.1 made standard: a v1.0 document that uses them gets the
 * standard class (cwltool's v1.0 -> v1.1 upgrade).
 */
export const V10_EXTENSION_CLASSES: Readonly<Record<string, string>> = {
  'http://commonwl.org/cwltool#WorkReuse': 'WorkReuse',
  'http://arvados.org/cwl#ReuseRequirement': 'WorkReuse',
  'http://commonwl.org/cwltool#TimeLimit': 'ToolTimeLimit',
  'http://commonwl.org/cwltool#NetworkAccess': 'NetworkAccess',
  'http://commonwl.org/cwltool#InplaceUpdateRequirement': 'InplaceUpdateRequirement',
  'http://commonwl.org/cwltool#LoadListingRequirement': 'LoadListingRequirement',
};
