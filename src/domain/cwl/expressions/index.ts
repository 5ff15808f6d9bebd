/**
 * CWL v1.2 expressions: parameter references, `$(...)` and `${...}` JavaScript, string interpolation.
 * Pure functions over JSON; JavaScript runs behind the ExpressionEvaluator interface (the engine's sandbox).
 */
export type { Json, JsonMap } from './json-value.js';
export { isJsonMap } from './json-value.js';
export { ExpressionError, ExpressionSyntaxError, JavaScriptError, type JavaScriptLimit } from './errors.js';
export type { EvaluationRequest, ExpressionContext, ExpressionEvaluator } from './evaluator.js';
export { containsExpression, scanExpressions, usesLegacyEscapes, type ScanOptions, type ScannedPiece } from './scanner.js';
export { parseParameterReference, resolveParameterReference, type ParameterReference, type Resolution } from './parameter-reference.js';
export { interpolationText } from './interpolation-text.js';
export { parseTemplate, type ExpressionPart, type Template, type TemplateOptions, type TemplatePart } from './template.js';
export {
  evaluateExpression,
  evaluateExpressionSync,
  evaluateTemplate,
  evaluateTemplateSync,
  type EvaluateOptions,
  type JavaScriptSupport,
} from './evaluate.js';
