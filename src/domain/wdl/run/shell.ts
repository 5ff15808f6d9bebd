import type { Expr, PlaceholderOptions, StringPart } from '../ast.js';
import { evaluate, type Scope } from '../eval.js';
import { WdlRuntimeError, type Pos } from '../errors.js';
import { stringOf, type WdlValue } from '../values.js';

/**
 * A task's command with its placeholders filled in (spec "Command Section"), so that no value can become shell syntax:
 * each value is written as the shell reads it back literally where the placeholder stands. Inside single quotes, `'`
 * is closed and escaped; inside double quotes, `\ " $ \`` are escaped; elsewhere a value that is not a plain word
 * (letters, digits, `_ @ % + = : , . / -`) is single-quoted. So `echo "~{name}"` prints the name exactly as the spec
 * says, whatever it holds, and `rm ~{file}` removes one file, never runs `$(...)` nor splits on spaces.
 */
export function renderCommand(parts: readonly StringPart[], scope: Scope): string {
  let out = '';
  let state: QuoteState = 'none';
  for (const segment of parts.flatMap((part) => (typeof part === 'string' ? [{ raw: part }] : placeholderSegments(part, scope)))) {
    if ('raw' in segment) {
      out += segment.raw;
      state = advance(state, segment.raw);
    } else out += quoteFor(state, segment.value);
  }
  return out;
}

/** A piece of a rendered command: the document's own text (shell syntax, as written) or a value (quoted where it lands). */
type Segment = { readonly raw: string } | { readonly value: string };

/**
 * A placeholder as segments. What the document itself writes inside it stays shell syntax, as the spec means it:
 * the text of a string literal (`~{if defined(c) then "cat ~{f} >> out" else ""}`: the branch taken), the separator of
 * `sep("SEP", xs)` and the quotes that quote()/squote() and the text that prefix()/suffix() add to each item. Only the
 * values (`f`, each item) are quoted, so that none of them can become shell syntax.
 */
function placeholderSegments(part: Exclude<StringPart, string>, scope: Scope): Segment[] {
  const options = part.options;
  const plain = options.sep === undefined && options.true === undefined && options.false === undefined && options.default === undefined;
  return (plain ? textSegments(part.expr, scope) : undefined) ?? valueSegments(evaluate(part.expr, scope), options, part.expr.pos);
}

/** The segments of a String expression whose text the document writes; undefined for any other expression. */
function textSegments(expr: Expr, scope: Scope): Segment[] | undefined {
  if (expr.kind === 'string') return expr.parts.flatMap((part) => (typeof part === 'string' ? [{ raw: part }] : placeholderSegments(part, scope)));
  if (expr.kind === 'if') {
    const cond = evaluate(expr.cond, scope);
    if (cond.t !== 'Boolean') return undefined;
    const branch = cond.v ? expr.then : expr.else;
    return textSegments(branch, scope) ?? valueSegments(evaluate(branch, scope), {}, branch.pos);
  }
  if (expr.kind === 'call' && expr.name === 'sep' && expr.args.length === 2) {
    const separator = literalText(expr.args[0]!);
    const items = separator === undefined ? undefined : itemSegments(expr.args[1]!, scope);
    return items?.flatMap((item, i) => (i === 0 ? item : [{ raw: separator! }, ...item]));
  }
  return undefined;
}

/** The items of an Array[String] expression as segments: quote(), squote(), prefix() and suffix() of a literal kept as text. */
function itemSegments(expr: Expr, scope: Scope): Segment[][] | undefined {
  if (expr.kind === 'call' && (expr.name === 'quote' || expr.name === 'squote') && expr.args.length === 1) {
    const mark = expr.name === 'quote' ? '"' : "'";
    return itemSegments(expr.args[0]!, scope)?.map((item) => [{ raw: mark }, ...item, { raw: mark }]);
  }
  if (expr.kind === 'call' && (expr.name === 'prefix' || expr.name === 'suffix') && expr.args.length === 2) {
    const text = literalText(expr.args[0]!);
    if (text === undefined) return undefined;
    return itemSegments(expr.args[1]!, scope)?.map((item) => (expr.name === 'prefix' ? [{ raw: text }, ...item] : [...item, { raw: text }]));
  }
  const value = evaluate(expr, scope);
  if (value.t !== 'Array') return undefined;
  return value.items.map((item) => [{ value: stringOf(item) }]);
}

/** The text of a string literal without placeholders. */
function literalText(expr: Expr): string | undefined {
  return expr.kind === 'string' && expr.parts.every((part) => typeof part === 'string') ? expr.parts.join('') : undefined;
}

type QuoteState = 'none' | 'single' | 'double' | 'comment';

/** The shell's quoting state after `text`, from `state` (backslashes, quotes, `#` comments to the end of the line). */
function advance(state: QuoteState, text: string): QuoteState {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (state === 'comment') {
      if (c === '\n') state = 'none';
    } else if (state === 'single') {
      if (c === "'") state = 'none';
    } else if (state === 'double') {
      if (c === '\\') i++;
      else if (c === '"') state = 'none';
    } else if (c === '\\') i++;
    else if (c === "'") state = 'single';
    else if (c === '"') state = 'double';
    else if (c === '#' && (i === 0 ? true : /[\s;&|(]/.test(text[i - 1]!))) state = 'comment';
  }
  return state;
}

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

function quoteFor(state: QuoteState, text: string): string {
  switch (state) {
    case 'single':
      return text.replace(/'/g, `'\\''`);
    case 'double':
      return text.replace(/[\\"$`]/g, (c) => `\\${c}`);
    case 'comment':
      return text.replace(/\n/g, ' ');
    default:
      return PLAIN.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
  }
}

function valueSegments(value: WdlValue, options: PlaceholderOptions, pos: Pos): Segment[] {
  // Option strings are the document's own text, not values: written as they are.
  if (value.t === 'None') return [{ raw: options.default ?? '' }];
  if (options.true !== undefined || options.false !== undefined) {
    if (value.t !== 'Boolean') throw new WdlRuntimeError(`the true/false options need a Boolean, not a ${value.t}`, pos);
    return [{ raw: (value.v ? options.true : options.false) ?? '' }];
  }
  if (value.t === 'Array') {
    if (options.sep === undefined) throw new WdlRuntimeError('an array in a placeholder needs the sep option', pos);
    return value.items.flatMap((item, i): Segment[] => (i === 0 ? [{ value: stringOf(item) }] : [{ raw: options.sep! }, { value: stringOf(item) }]));
  }
  return [{ value: stringOf(value) }];
}
