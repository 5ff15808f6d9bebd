import type { FileContentReader } from '../contents.js';
import { evaluateExpression, ExpressionError, usesLegacyEscapes, type ExpressionEvaluator, type Json, type JsonMap } from '../expressions/index.js';
import type { CwlInputObject, CwlValue, CwlVersion } from '../model.js';
import { WorkflowRunError } from './errors.js';
import { findRequirement, type EffectiveRequirements } from './requirements.js';

/** What evaluating a step's own expressions (`valueFrom`, `when`) and loading its inputs' contents need. */
export interface StepOptions {
  /** The requirements in effect at the step: `effectiveRequirements(chain, step, undefined, jobRequirements)`. */
  readonly requirements: EffectiveRequirements;
  /** The version of the workflow that holds the step: its escapes, and whether loadContents may truncate. */
  readonly cwlVersion: CwlVersion;
  /** Runs JavaScript; needed when InlineJavascriptRequirement applies to the step. */
  readonly evaluator?: ExpressionEvaluator;
  /** Reads files for `loadContents`; needed when a step input asks for it. */
  readonly contents?: FileContentReader;
}

/**
 * A step expression's value. `runtime` is not known before the step's process runs, so it holds only
 * `outdir` and `tmpdir`, both null (as in the reference runner). JavaScript is available when
 * InlineJavascriptRequirement applies to the step (required or hinted: a hint gdflow can honour, it honours).
 * An ExpressionError becomes a WorkflowRunError that starts with `where` (`step 'a', valueFrom of input 'x'`).
 */
export async function evaluateStepExpression(
  expression: string,
  inputs: CwlInputObject,
  self: CwlValue,
  options: StepOptions,
  where: string,
): Promise<CwlValue> {
  const inline = findRequirement(options.requirements, 'InlineJavascriptRequirement');
  if (inline && options.evaluator === undefined) throw new Error('InlineJavascriptRequirement applies to the step, but no ExpressionEvaluator was given');
  const javascript = inline && options.evaluator ? { evaluator: options.evaluator, expressionLib: inline.requirement.expressionLib } : null;
  const context = { inputs: inputs as unknown as JsonMap, self: self as unknown as Json, runtime: { outdir: null, tmpdir: null } };
  try {
    return await evaluateExpression(expression, context, { javascript, legacyEscapes: usesLegacyEscapes(options.cwlVersion) });
  } catch (error) {
    if (error instanceof ExpressionError) throw new WorkflowRunError(`${where}: ${error.message}`, { cause: error });
    throw error;
  }
}
