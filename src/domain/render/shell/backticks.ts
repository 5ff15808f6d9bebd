import { RenderError } from '../errors.js';
import { OPEN, SENTINEL } from '../sentinel.js';
import { escapeExpansions } from './contexts.js';
import type { LexState } from './state.js';

/**
 * The text of a backtick substitution starting at `start`: up to the next unescaped backtick outside values, whatever
 * quotes are inside, as the shell finds its end; with `\\`, `` \` `` and `\$` unescaped as the shell does.
 */
function extent(lx: LexState, start: number): { inner: string; end: number; closed: boolean } {
  const { text } = lx;
  let j = start + 1;
  let inner = '';
  while (j < text.length && text[j] !== '`') {
    if (text[j] === OPEN) {
      // A value is data: its characters neither end the substitution nor get unescaped.
      const end = lx.valueEnd(j);
      inner += text.slice(j, end + 1);
      j = end + 1;
    } else if (text[j] === '\\' && j + 1 < text.length && '\\`$'.includes(text[j + 1]!)) {
      inner += text[j + 1];
      j += 2;
    } else {
      inner += text[j];
      j++;
    }
  }
  return { inner, end: j, closed: j < text.length };
}

/**
 * A backtick substitution at the lexer's position, read in one step: without values it is copied; with values its
 * text is lexed as a command of its own (lx.lexCommand), and escaped again.
 */
export function backticks(lx: LexState): void {
  const start = lx.at;
  const { inner, end, closed } = extent(lx, start);
  if (!SENTINEL.test(inner)) {
    lx.emit(lx.text.slice(start, closed ? end + 1 : lx.text.length));
    if (!closed) lx.openAtEnd ??= 'a backtick substitution';
  } else {
    // Unescaping only shortens the text: this position is at or before the first value's marker.
    const member = (): string => lx.memberAt(start + inner.search(SENTINEL));
    if (!closed) throw new RenderError(`cmd_template leaves a backtick substitution open at its end; ${member()} cannot be quoted safely`, 'placement');
    lx.refuseIfAmbiguous(member);
    const command = lx.stack.findLastIndex((f) => f.kind === 'cmd');
    if (lx.stack.slice(command + 1).some((f) => f.kind === 'dq' || (f.kind === 'param' && f.inDq))) {
      const instead = 'use $(...) in cmd_template';
      throw new RenderError(`${member()} is used inside backticks within double quotes, which shells parse differently; ${instead}`, 'placement');
    }
    const nested = lx.lexCommand(inner, lx.userValues, lx.feedsArithmetic());
    if (nested.ambiguous !== undefined) lx.markAmbiguous(nested.ambiguous);
    lx.literals.push(lx.literal, ...nested.literals);
    lx.literal = '';
    lx.out += `\`${escapeExpansions(nested.out)}\``;
    lx.spans += nested.spans;
  }
  lx.at = closed ? end + 1 : lx.text.length;
  lx.wordStart = false;
}
