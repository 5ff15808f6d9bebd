import { ExpressionError, JavaScriptError, shortened } from './errors.js';
import type { ExpressionContext, ExpressionEvaluator } from './evaluator.js';
import { interpolationText } from './interpolation-text.js';
import type { Json } from './json-value.js';
import { resolveParameterReference } from './parameter-reference.js';
import { containsExpression } from './scanner.js';
import { parseTemplate, type ExpressionPart, type Template, type TemplateOptions } from './template.js';

/** Evaluating a field: the raw value of a lone expression, or the text of an interpolated string. */

/** What InlineJavascriptRequirement brings: an evaluator and the requirement's expressionLib. */
export interface JavaScriptSupport {
  evaluator: ExpressionEvaluator;
  expressionLib: readonly string[];
}

export interface EvaluateOptions extends TemplateOptions {
  /** Set when InlineJavascriptRequirement applies; without it only parameter references may be used. */
  javascript?: JavaScriptSupport | null;
}

export async function evaluateTemplate(template: Template, context: ExpressionContext, javascript?: JavaScriptSupport | null): Promise<Json> {
  const values: Json[] = [];
  for (const part of template.parts) if (part.kind !== 'text') values.push(await evaluatePart(part, context, javascript ?? null));
  return assemble(template, values);
}

/** The same without JavaScript, synchronously: an expression that needs JavaScript is an ExpressionError. */
export function evaluateTemplateSync(template: Template, context: ExpressionContext): Json {
  const values: Json[] = [];
  for (const part of template.parts) {
    if (part.kind === 'text') continue;
    if (part.kind === 'javascript') throw new ExpressionError(shortened(part.source), needsJavaScript(part.form));
    const resolution = resolveParameterReference(part.reference, context);
    if (!resolution.ok) throw new ExpressionError(shortened(part.source), resolution.reason);
    values.push(resolution.value);
  }
  return assemble(template, values);
}

/**
 * A field's effective value. Anything but a string containing `$(` or `${` is returned as it is; strings are
 * parsed once per text and options (a small cache) and evaluated against the context.
 */
export function evaluateExpression(value: Json, context: ExpressionContext, options: EvaluateOptions = {}): Promise<Json> {
  if (!containsExpression(value)) return Promise.resolve(value);
  return evaluateTemplate(cachedTemplate(value, options), context, options.javascript);
}

export function evaluateExpressionSync(value: Json, context: ExpressionContext, options: TemplateOptions = {}): Json {
  if (!containsExpression(value)) return value;
  return evaluateTemplateSync(cachedTemplate(value, options), context);
}

async function evaluatePart(part: ExpressionPart, context: ExpressionContext, javascript: JavaScriptSupport | null): Promise<Json> {
  if (part.kind === 'reference') {
    const resolution = resolveParameterReference(part.reference, context);
    if (resolution.ok) return resolution.value;
    // Where the reference rules give up, JavaScript may still answer (a missing member is undefined: null), and
    // CWL wants the same result either way, so with JavaScript at hand the reference is run as JavaScript.
    if (javascript === null) throw new ExpressionError(shortened(part.source), resolution.reason);
    return runJavaScript('expression', part.code, part.source, context, javascript);
  }
  if (javascript === null) throw new ExpressionError(shortened(part.source), needsJavaScript(part.form));
  return runJavaScript(part.form, part.code, part.source, context, javascript);
}

async function runJavaScript(
  kind: 'expression' | 'body',
  code: string,
  source: string,
  context: ExpressionContext,
  javascript: JavaScriptSupport,
): Promise<Json> {
  try {
    return await javascript.evaluator.evaluate({ kind, code, context, expressionLib: javascript.expressionLib });
  } catch (error) {
    if (error instanceof JavaScriptError) throw new ExpressionError(shortened(source), error.message, { cause: error });
    throw error;
  }
}

const needsJavaScript = (form: 'expression' | 'body'): string =>
  form === 'body'
    ? 'a ${...} function body is JavaScript, which needs InlineJavascriptRequirement'
    : "it is not a parameter reference (inputs, self or runtime followed by .name, ['name'] or [index]), " +
      'and JavaScript expressions need InlineJavascriptRequirement';

function assemble(template: Template, values: Json[]): Json {
  if (template.whole) return values[0] ?? null;
  let text = '';
  let next = 0;
  for (const part of template.parts) text += part.kind === 'text' ? part.text : interpolationText(values[next++] ?? null);
  return text;
}

const CACHE_SIZE = 2000;
const templates = new Map<string, Template>();

function cachedTemplate(text: string, options: TemplateOptions): Template {
  const key = `${options.legacyEscapes ? 'L' : '-'}${options.trimWhitespace === false ? 'K' : '-'}${text}`;
  let template = templates.get(key);
  if (template === undefined) {
    template = parseTemplate(text, options);
    if (templates.size >= CACHE_SIZE) templates.clear();
    templates.set(key, template);
  }
  return template;
}
