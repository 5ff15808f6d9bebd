import { ExpressionSyntaxError } from './errors.js';

/**
 * Finds the `$(...)` and `${...}` of a string the way CWL v1.2 ("Parameter references", "String interpolation")
 * and its reference runner do: one pass from the start; an expression ends at the parenthesis or brace that
 * balances its opening one, counting only that kind and skipping what is inside '...' or "..." (where a
 * backslash escapes the next character). Regular expression literals, template literals and comments are not
 * understood, as in cwltool, so that a document splits into the same expressions on every runner.
 */

export type ScannedPiece =
  | { kind: 'text'; text: string }
  /** `kind` is `expression` for `$(code)` and `body` for `${code}`; `source` is the whole `$(...)`. */
  | { kind: 'expression' | 'body'; code: string; source: string; start: number };

export interface ScanOptions {
  /** Escapes of CWL v1.0 and v1.1: a backslash keeps only the character after it. Default: v1.2's rules. */
  legacyEscapes?: boolean;
}

/** Whether a value is a string that CWL would interpolate (it contains `$(` or `${`); others are taken as they are. */
export const containsExpression = (value: unknown): value is string => typeof value === 'string' && (value.includes('$(') || value.includes('${'));

/** The CWL versions whose documents use the old escapes (`legacyEscapes`). */
export const usesLegacyEscapes = (cwlVersion: string): boolean => /^v1\.[01](\.0-dev\d+)?$|^v1\.2\.0-dev[123]$/.test(cwlVersion);

export function scanExpressions(text: string, options: ScanOptions = {}): ScannedPiece[] {
  const pieces: ScannedPiece[] = [];
  let literal = '';
  let from = 0; // start of the text not yet copied into `literal`
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      const [replacement, length] = options.legacyEscapes ? legacyEscape(text, i) : escape(text, i);
      literal += text.slice(from, i) + replacement;
      i += length;
      from = i;
    } else if (c === '$' && (text[i + 1] === '(' || text[i + 1] === '{')) {
      const end = closingIndex(text, i);
      literal += text.slice(from, i);
      if (literal) pieces.push({ kind: 'text', text: literal });
      literal = '';
      const kind = text[i + 1] === '(' ? 'expression' : 'body';
      pieces.push({ kind, code: text.slice(i + 2, end), source: text.slice(i, end + 1), start: i });
      i = end + 1;
      from = i;
    } else {
      i += 1;
    }
  }
  literal += text.slice(from);
  if (literal) pieces.push({ kind: 'text', text: literal });
  return pieces;
}

/** v1.2: `\$(` and `\${` lose their backslash, `\\` becomes `\`, any other backslash stays with its character. */
function escape(text: string, at: number): [string, number] {
  const next = text[at + 1];
  if (next === undefined) return ['\\', 1];
  if (next === '$' && (text[at + 2] === '(' || text[at + 2] === '{')) return [`$${text[at + 2]}`, 3];
  if (next === '\\') return ['\\', 2];
  return [`\\${next}`, 2];
}

function legacyEscape(text: string, at: number): [string, number] {
  const next = text[at + 1];
  return next === undefined ? ['\\', 1] : [next, 2];
}

/** The index of the `)` or `}` that closes the expression whose `$` is at `dollar`. */
function closingIndex(text: string, dollar: number): number {
  const open = text[dollar + 1];
  const close = open === '(' ? ')' : '}';
  let depth = 0;
  let quote: string | undefined;
  for (let j = dollar + 1; j < text.length; j++) {
    const c = text[j];
    if (quote !== undefined) {
      if (c === '\\') j += 1;
      else if (c === quote) quote = undefined;
    } else if (c === open) {
      depth += 1;
    } else if (c === close) {
      depth -= 1;
      if (depth === 0) return j;
    } else if (c === '"' || c === "'") {
      quote = c;
    }
  }
  const why = quote === undefined ? `no '${close}' closes it` : `a string in it, opened by ${quote}, is not closed`;
  throw new ExpressionSyntaxError(text, dollar, `the expression that starts at character ${dollar + 1} is not closed: ${why}`);
}
