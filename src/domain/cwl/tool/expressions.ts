import { evaluateExpression, usesLegacyEscapes, type ExpressionEvaluator, type JavaScriptSupport, type Json, type JsonMap } from '../expressions/index.js';
import type { CwlProcessBase } from '../model.js';
import { ToolRunError } from './errors.js';
import { findRequirement, type EffectiveRequirements } from '../workflow/requirements.js';

/**
 * The expressions of one run: the process's escapes (v1.0/v1.1 or v1.2), JavaScript when InlineJavascriptRequirement
 * is in force (as a requirement or a hint: a runner may honour hints), and the current `inputs` and `runtime`, which
 * change as the run is prepared (paths once inputs are staged, cores and ram once resources are decided).
 */
export class ToolExpressions {
  private readonly javascript: JavaScriptSupport | null;
  private readonly legacyEscapes: boolean;

  constructor(
    process: CwlProcessBase,
    effective: EffectiveRequirements,
    evaluator: ExpressionEvaluator | undefined,
    public inputs: JsonMap,
    public runtime: JsonMap,
  ) {
    const inline = findRequirement(effective, 'InlineJavascriptRequirement');
    if (inline !== undefined && evaluator === undefined) {
      throw new Error(`${process.id} uses InlineJavascriptRequirement: give the tool semantics an ExpressionEvaluator`);
    }
    this.javascript = inline !== undefined && evaluator !== undefined ? { evaluator, expressionLib: inline.requirement.expressionLib } : null;
    this.legacyEscapes = usesLegacyEscapes(process.cwlVersion);
  }

  /** A field's effective value (CWL's rules: a lone expression gives its value, text around it interpolates). */
  evaluate(value: Json, self: Json = null, options: { trimWhitespace?: boolean } = {}): Promise<Json> {
    return evaluateExpression(
      value,
      { inputs: this.inputs, self, runtime: this.runtime },
      {
        javascript: this.javascript,
        legacyEscapes: this.legacyEscapes,
        ...(options.trimWhitespace === false ? { trimWhitespace: false } : {}),
      },
    );
  }

  /** A field that must give a string (or null when `nullable`). */
  async string(field: string, value: string, self?: Json): Promise<string>;
  async string(field: string, value: string, self: Json, nullable: true): Promise<string | null>;
  async string(field: string, value: string, self: Json = null, nullable = false): Promise<string | null> {
    const result = await this.evaluate(value, self);
    if (typeof result === 'string' || (nullable && result === null)) return result;
    throw wrongType(field, value, result, nullable ? 'a string or null' : 'a string');
  }

  async integer(field: string, value: number | string, self: Json = null): Promise<number> {
    const result = await this.evaluate(value, self);
    if (typeof result === 'number' && Number.isInteger(result)) return result;
    throw wrongType(field, value, result, 'a whole number');
  }

  async boolean(field: string, value: boolean | string, self: Json = null): Promise<boolean> {
    const result = await this.evaluate(value, self);
    if (typeof result === 'boolean') return result;
    throw wrongType(field, value, result, 'true or false');
  }
}

export function wrongType(field: string, expression: Json, result: Json, expected: string): ToolRunError {
  return new ToolRunError(`${field} must be ${expected}, but ${JSON.stringify(expression)} gave ${brief(result)}`);
}

/** A value in a message, cut when long. */
export function brief(value: Json | undefined): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
