import { isJsonMap, type JsonMap } from '../expressions/index.js';
import type { CwlInputObject, CwlOutputObject, ExpressionTool } from '../model.js';
import { effectiveRequirements } from '../workflow/requirements.js';
import { ToolRunError } from './errors.js';
import { brief, ToolExpressions } from './expressions.js';
import { completeInputFiles, inputFileContext } from './input-files.js';
import { checkOutputs } from './output-types.js';
import { decideResources } from './resources.js';
import type { RuntimePlaces, ToolRunOptions } from './tool-run.js';

/**
 * Runs an ExpressionTool: its inputs completed as for a CommandLineTool (loadContents, loadListing, secondary
 * files; nothing is staged, Files keep their locations), its resources decided (runtime.cores, runtime.ram), its
 * expression evaluated in the sandbox; the result must be an object whose outputs match their types.
 */
export async function runExpressionTool(
  tool: ExpressionTool,
  inputs: CwlInputObject,
  runtime: RuntimePlaces,
  options: Omit<ToolRunOptions, 'container' | 'stagingRoot'>,
): Promise<CwlOutputObject> {
  const effective = options.effective ?? effectiveRequirements([], undefined, tool);
  const values = structuredClone(inputs) as unknown as JsonMap;
  const expressions = new ToolExpressions(tool, effective, options.evaluator, values, { outdir: runtime.outdir, tmpdir: runtime.tmpdir });
  await completeInputFiles(tool.inputs, values, inputFileContext(tool.cwlVersion, effective, expressions, options));
  const resources = await decideResources(tool, effective, expressions);
  expressions.runtime = { ...expressions.runtime, ...resources.runtime };
  const result = await expressions.evaluate(tool.expression);
  if (!isJsonMap(result)) throw new ToolRunError(`the expression of ${tool.id} must give an object of outputs, not ${brief(result)}`);
  return checkOutputs(tool.id, tool.outputs, result);
}
