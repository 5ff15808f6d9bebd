import { parseParameterReference, type ParameterReference } from './parameter-reference.js';
import { containsExpression, scanExpressions, type ScanOptions } from './scanner.js';

/**
 * A field's string taken apart once into text and expressions, each expression already known to be a parameter
 * reference or JavaScript, so that evaluating it for every job of a scatter only walks values.
 */

export interface TemplateOptions extends ScanOptions {
  /**
   * Leading and trailing whitespace is taken off before interpolating (the default, as the reference runner does,
   * so that `$(inputs.x)` followed by a newline still yields the raw value). InitialWorkDirRequirement's `entry`
   * sets it to false: there the text is a file's content and a trailing newline is kept.
   */
  trimWhitespace?: boolean;
}

export type ExpressionPart =
  /** `$(inputs.x.y)`: resolved without JavaScript. */
  | { kind: 'reference'; reference: ParameterReference; code: string; source: string }
  /** Anything else in `$(...)`, and every `${...}`: needs InlineJavascriptRequirement. */
  | { kind: 'javascript'; form: 'expression' | 'body'; code: string; source: string };

export type TemplatePart = { kind: 'text'; text: string } | ExpressionPart;

export interface Template {
  /** The string as written in the document. */
  source: string;
  parts: TemplatePart[];
  /** The string is one expression and nothing else (around it only whitespace): its value, of any type, is the result. */
  whole: boolean;
  /** Some part needs a JavaScript evaluator. */
  needsJavaScript: boolean;
}

/** A string without `$(` or `${` is text as written: its backslashes and whitespace are kept, as in cwltool. */
export function parseTemplate(text: string, options: TemplateOptions = {}): Template {
  if (!containsExpression(text)) return { source: text, parts: [{ kind: 'text', text }], whole: false, needsJavaScript: false };
  const parts = scanExpressions(options.trimWhitespace === false ? text : text.trim(), options).map((piece): TemplatePart => {
    if (piece.kind === 'text') return piece;
    const reference = piece.kind === 'expression' ? parseParameterReference(piece.code) : undefined;
    if (reference !== undefined) return { kind: 'reference', reference, code: piece.code, source: piece.source };
    return { kind: 'javascript', form: piece.kind, code: piece.code, source: piece.source };
  });
  return {
    source: text,
    parts,
    whole: parts.length === 1 && parts[0]?.kind !== 'text',
    needsJavaScript: parts.some((part) => part.kind === 'javascript'),
  };
}
