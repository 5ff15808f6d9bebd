import { containsExpression, isJsonMap, type ExpressionEvaluator, type Json, type JsonMap } from '../expressions/index.js';
import { acceptsNull, membersOf } from '../model.js';
import type { CommandLineTool, CommandOutputBinding, CwlInputObject, CwlOutputObject, CwlType, SecondaryFileSpec } from '../model.js';
import { ToolRunError } from './errors.js';
import { brief, ToolExpressions } from './expressions.js';
import type { FileAccess, OutputDirectory } from './file-access.js';
import { globOutputs, type OutputContext } from './glob-outputs.js';
import { finishOutputObjects } from './output-objects.js';
import { OutputPaths } from './output-paths.js';
import { checkOutputs } from './output-types.js';
import { effectiveRequirements, findRequirement, type EffectiveRequirements } from '../workflow/requirements.js';
import type { CwlRuntime, StagedItem } from './tool-run.js';
import { asList, basenameOf, isFileObject, parentOf, secondaryName } from './values.js';
import { parseExactJson } from '../../../contract/exact-json.js';

export interface CollectOptions {
  /** The requirements and hints in force (as given to prepareToolRun). */
  readonly effective?: EffectiveRequirements;
  readonly evaluator?: ExpressionEvaluator;
  /** Reads inputs an output passes through (their size and checksum). */
  readonly files: FileAccess;
  /** The run's staged items (ToolRun.staging and ToolRun.workDir): which sandbox paths are inputs passed through. */
  readonly staged?: readonly StagedItem[];
  /** Give output Files their sha1 checksum (default true). */
  readonly computeChecksum?: boolean;
}

/** cwl.output.json is read whole up to this size. */
const OUTPUT_JSON_LIMIT = 64 * 1024 * 1024;

/**
 * The output object of a finished CommandLineTool run, from its output directory: cwl.output.json when the tool
 * wrote one (its Files' locations relative to the outdir), else each output's outputBinding (glob, loadContents,
 * loadListing, outputEval, secondaryFiles, format); then every File and Directory checked and completed
 * (finishOutputObjects) and every output checked against its type. `inputs` and `runtime` are the ToolRun's (the
 * staged inputs, the runtime with the run's exitCode).
 */
export async function collectToolOutputs(
  tool: CommandLineTool,
  inputs: CwlInputObject,
  runtime: CwlRuntime,
  outputDir: OutputDirectory,
  options: CollectOptions,
): Promise<CwlOutputObject> {
  const effective = options.effective ?? effectiveRequirements([], undefined, tool);
  const { exitCode, ...withoutExitCode } = runtime;
  const seen = tool.cwlVersion === 'v1.0' || exitCode === undefined ? withoutExitCode : runtime;
  const context: OutputContext = {
    paths: new OutputPaths(runtime.outdir, outputDir, options.files, options.staged ?? []),
    expressions: new ToolExpressions(tool, effective, options.evaluator, structuredClone(inputs) as unknown as JsonMap, { ...seen }),
    loadListing: findRequirement(effective, 'LoadListingRequirement')?.requirement.loadListing ?? 'no_listing',
    computeChecksum: options.computeChecksum ?? true,
    cwlVersion: tool.cwlVersion,
  };
  let result: JsonMap = {};
  if ((await outputDir.stat('cwl.output.json'))?.class === 'File') result = await outputJson(outputDir);
  else {
    for (const output of tool.outputs) {
      const value = await collectOutput(output.type, output.outputBinding, output, context, `outputs.${output.name}`);
      result[output.name] = value;
    }
  }
  await finishOutputObjects(result, context.paths, context.computeChecksum, 'outputs');
  return checkOutputs(tool.id, tool.outputs, result);
}

async function outputJson(outputDir: OutputDirectory): Promise<JsonMap> {
  const bytes = await outputDir.readPrefix('cwl.output.json', OUTPUT_JSON_LIMIT + 1);
  if (bytes.length > OUTPUT_JSON_LIMIT) throw new ToolRunError(`cwl.output.json is larger than ${OUTPUT_JSON_LIMIT} bytes`);
  let parsed: Json;
  try {
    parsed = parseExactJson(new TextDecoder().decode(bytes)) as Json;
  } catch (error) {
    throw new ToolRunError(`cwl.output.json is not JSON: ${(error as Error).message}`);
  }
  if (!isJsonMap(parsed)) throw new ToolRunError(`cwl.output.json must hold an object, not ${brief(parsed)}`);
  return parsed;
}

/** What one output parameter (or record field) collects (cwltool's collect_output). */
async function collectOutput(
  type: CwlType,
  binding: CommandOutputBinding | undefined,
  parameter: { readonly secondaryFiles: readonly SecondaryFileSpec[]; readonly format?: string | undefined },
  context: OutputContext,
  where: string,
): Promise<Json> {
  let result: Json = null;
  if (binding !== undefined) {
    const { expressions } = context;
    const { files, patterns } = await globOutputs(binding, context);
    result = binding.outputEval !== undefined ? await expressions.evaluate(binding.outputEval, files) : files;
    const optional = acceptsNull(type);
    if (membersOf(type).some((t) => t.kind === 'File' || t.kind === 'Directory')) {
      if (isEmpty(result) && !optional) throw new ToolRunError(`${where}: no file matches the glob ${JSON.stringify(patterns)}`);
      if (Array.isArray(result)) {
        if (result.length > 1) {
          const matched = `${result.length} files match the glob ${JSON.stringify(patterns)}`;
          throw new ToolRunError(`${where}: ${matched}, and the output is a single ${describeSingle(type)}`);
        }
        result = result[0] ?? null;
      }
    }
    if (parameter.secondaryFiles.length > 0) await outputSecondaryFiles(result, parameter.secondaryFiles, context, where);
    if (typeof parameter.format === 'string') await setFormat(result, parameter.format, expressions);
    if (isEmpty(result) && optional) return result === 0 || result === '' || result === false ? result : null;
  }
  if (isEmpty(result) && type.kind === 'record') {
    const record: JsonMap = {};
    for (const field of type.fields) {
      const parameter = { secondaryFiles: field.secondaryFiles, format: field.format?.[0] };
      record[field.name] = await collectOutput(field.type, field.outputBinding, parameter, context, `${where}.${field.name}`);
    }
    return record;
  }
  return result;
}

/** Python's falsiness, which cwltool's rules use: null, false, 0, '', [] and {}. */
const isEmpty = (value: Json): boolean => !value || (Array.isArray(value) && value.length === 0) || (isJsonMap(value) && Object.keys(value).length === 0);

const describeSingle = (type: CwlType): string => (membersOf(type).some((t) => t.kind === 'File') ? 'File' : 'Directory');

/** An output's secondaryFiles, looked for beside each primary (patterns or expressions); a required one missing is an error. */
async function outputSecondaryFiles(result: Json, specs: readonly SecondaryFileSpec[], context: OutputContext, where: string): Promise<void> {
  const { paths, expressions } = context;
  for (const primary of asList(result)) {
    if (!isFileObject(primary)) continue;
    const found: Json[] = Array.isArray(primary.secondaryFiles) ? primary.secondaryFiles : [];
    primary.secondaryFiles = found;
    const directory = typeof primary.path === 'string' ? parentOf(primary.path) : paths.outdir;
    for (const spec of specs) {
      const required = typeof spec.required === 'boolean' ? spec.required : await expressions.evaluate(spec.required, primary);
      if (typeof required !== 'boolean' && required !== null) {
        throw new ToolRunError(`${where}: secondaryFiles 'required' must give true or false, but ${JSON.stringify(spec.required)} gave ${brief(required)}`);
      }
      const names = containsExpression(spec.pattern) ? await expressions.evaluate(spec.pattern, primary) : secondaryName(basenameOf(primary), spec.pattern);
      for (const name of asList(names)) {
        if (!name) continue;
        if (isFileObject(name)) {
          found.push(name);
          continue;
        }
        if (typeof name !== 'string') {
          throw new ToolRunError(`${where}: secondaryFiles ${JSON.stringify(spec.pattern)} must give names or Files, not ${brief(name)}`);
        }
        const path = `${directory}/${name}`;
        const ref = paths.resolve(path);
        const stat = ref === undefined ? undefined : await paths.stat(ref);
        if (ref !== undefined && stat !== undefined) found.push(paths.objectFor(ref, stat.class, path));
        else if (required === true) throw new ToolRunError(`${where}: the required secondary file ${path} is missing`);
      }
    }
  }
}

/** An output's format (an expression evaluated with `self` each File) on each File of its value. */
async function setFormat(result: Json, format: string, expressions: ToolExpressions): Promise<void> {
  for (const primary of asList(result)) {
    if (!isFileObject(primary)) continue;
    primary.format = containsExpression(format) ? await expressions.string('format', format, primary) : format;
  }
}
