import type { StringPart } from '../ast.js';
import { evaluate, type Scope } from '../eval.js';
import { WdlRuntimeError } from '../errors.js';
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
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      state = advance(state, part);
      continue;
    }
    const value = evaluate(part.expr, scope);
    const quote = (text: string) => quoteFor(state, text);
    out += placeholderText(value, part.options, quote, part.expr.pos);
  }
  return out;
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

function placeholderText(
  value: WdlValue,
  options: { sep?: string; true?: string; false?: string; default?: string },
  quote: (t: string) => string,
  pos: { file: string; line: number; column: number },
): string {
  // Option strings are the document's own text, not values: written as they are.
  if (value.t === 'None') return options.default ?? '';
  if (options.true !== undefined || options.false !== undefined) {
    if (value.t !== 'Boolean') throw new WdlRuntimeError(`the true/false options need a Boolean, not a ${value.t}`, pos);
    return (value.v ? options.true : options.false) ?? '';
  }
  if (value.t === 'Array') {
    if (options.sep === undefined) throw new WdlRuntimeError('an array in a placeholder needs the sep option', pos);
    return value.items.map((item) => quote(stringOf(item))).join(options.sep);
  }
  return quote(stringOf(value));
}
