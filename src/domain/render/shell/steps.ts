import { RenderError } from '../errors.js';
import { CLOSE, OPEN } from '../sentinel.js';
import { backticks } from './backticks.js';
import { arithmeticFrame, openedByDollar, quoteFrame, WORD_BREAK, type ArithmeticFrame, type CommandFrame, type Frame, type ParameterFrame } from './frames.js';
import { heredocBodies, readHeredoc } from './heredoc.js';
import type { LexState } from './state.js';

/**
 * One step of the lexer in each kind of frame (the table in lexer.ts): read the construct that starts at the lexer's
 * position (one character, or an opener, an escape, a whole backtick substitution or here-document operator), copy
 * it, and push or pop frames. Values (the markers) are placed before a step is asked for (contexts.ts).
 */

/** Copy `opener` (the text at the lexer's position) and enter `frame`. */
function open(lx: LexState, opener: string, frame: Frame): void {
  lx.take(opener.length);
  lx.push(frame);
}

/** Copy the `n` characters that end the innermost frame, and leave it. */
function close(lx: LexState, n: number): void {
  lx.take(n);
  lx.pop();
}

/** A backslash and the character it escapes, which may not be a value's marker. */
function escaped(lx: LexState): void {
  const next = lx.text[lx.at + 1];
  if (next === OPEN) throw new RenderError(`${lx.memberAt(lx.at + 1)} directly follows a backslash in cmd_template`, 'placement');
  if (next === CLOSE) lx.cutApart();
  lx.take(next === undefined ? 1 : 2);
}

/** A `$`: enter the construct it opens, or copy a plain `$` (and return true), after which a value would name a variable. */
function dollar(lx: LexState, inDq: boolean): boolean {
  const opened = openedByDollar(lx.text, lx.at, inDq);
  if (opened) {
    open(lx, opened.opener, opened.frame);
    return false;
  }
  lx.take(1);
  lx.afterDollar = true;
  return true;
}

/** A backslash, a backtick or a `$`, live in every frame but quotes and comments; false for any other character. */
function expansion(lx: LexState, c: string, inDq: boolean): boolean {
  if (c === '\\') escaped(lx);
  else if (c === '`') backticks(lx);
  else if (c === '$') dollar(lx, inDq);
  else return false;
  return true;
}

/** Top level and `$( )`: words, quotes, substitutions, `((`, comments, here-documents; `)` at depth 0 ends `$( )`. */
function commandStep(lx: LexState, frame: CommandFrame, c: string): void {
  const { text, at } = lx;
  if (c === '\\') {
    const continuation = text[at + 1] === '\n';
    escaped(lx);
    if (!continuation) lx.wordStart = false;
  } else if (c === "'" || c === '"') {
    open(lx, c, quoteFrame(c));
  } else if (c === '`') {
    backticks(lx);
  } else if (c === '$') {
    if (dollar(lx, false)) lx.wordStart = false;
  } else if (c === '(' && text[at + 1] === '(' && lx.wordStart) {
    open(lx, '((', arithmeticFrame('))'));
  } else if (c === ')' && frame.close === ')' && frame.parens === 0) {
    close(lx, 1);
  } else if (c === '#' && lx.wordStart) {
    open(lx, '#', { kind: 'comment' });
  } else if (text.startsWith('<<<', at)) {
    // bash's here-string: the next word is an ordinary word.
    lx.take(3);
    lx.breakWord();
  } else if (text.startsWith('<<', at)) {
    readHeredoc(lx);
  } else {
    commandCharacter(lx, frame, c);
  }
}

/** Any other character of a command: counted if a parenthesis, a word break or part of the word. */
function commandCharacter(lx: LexState, frame: CommandFrame, c: string): void {
  if (frame.close === ')' && c === '(') frame.parens++;
  if (frame.close === ')' && c === ')') frame.parens--;
  if (lx.wordStart && frame.close === ')' && /^case[ \t\n]/.test(lx.text.slice(lx.at, lx.at + 5))) {
    // Its `pat)` would close the substitution for a lexer that counts parentheses.
    lx.markAmbiguous("a 'case' inside $(...)");
  }
  lx.take(1);
  if (c === '\n') heredocBodies(lx);
  if (WORD_BREAK.has(c)) {
    lx.breakWord();
  } else {
    lx.wordStart = false;
    if (c === '=') lx.wordHasEquals = true;
  }
}

/** `"..."` and `${...}`: escapes and substitutions are live; `${` also opens quotes (only `"` when within `"`). */
function quotedStep(lx: LexState, frame: { kind: 'dq' } | ParameterFrame, c: string): void {
  if (expansion(lx, c, frame.kind === 'dq' || frame.inDq)) return;
  if ((frame.kind === 'dq' && c === '"') || (frame.kind === 'param' && c === '}')) {
    close(lx, 1);
  } else if (frame.kind === 'param' && (c === '"' || (c === "'" && !frame.inDq))) {
    open(lx, c, quoteFrame(c));
  } else {
    // bash in POSIX mode reads a ' in a double-quoted ${ } as a quote, dash does not.
    if (frame.kind === 'param' && c === "'") lx.markAmbiguous("a ' inside ${...} within double quotes");
    lx.take(1);
  }
}

/** `'...'`: nothing is live but the closing quote. */
function singleQuotedStep(lx: LexState, c: string): void {
  if (c === "'") close(lx, 1);
  else lx.take(1);
}

/** `$'...'`: backslash escapes, and `\'`, where the shells disagree on where the quote ends. */
function ansiStep(lx: LexState, c: string): void {
  if (c === '\\') {
    if (lx.text[lx.at + 1] === "'") lx.markAmbiguous("\\' inside $'...'");
    escaped(lx);
  } else if (c === "'") {
    close(lx, 1);
  } else {
    lx.take(1);
  }
}

/** `$(( ))`, `(( ))`, `$[ ]`: quotes and substitutions are read; `))` or `]` at depth 0 ends it. */
function arithmeticStep(lx: LexState, frame: ArithmeticFrame, c: string): void {
  // `$'` and `$"` are no quotes here, and a `${` here reads quotes as within double quotes.
  if (expansion(lx, c, true)) return;
  if (c === "'" || c === '"') {
    open(lx, c, quoteFrame(c));
  } else if (c === ')' && frame.parens === 0) {
    if (frame.close === '))' && lx.text[lx.at + 1] === ')') {
      close(lx, 2);
    } else {
      lx.markAmbiguous('an unbalanced ) in shell arithmetic');
      close(lx, 1);
    }
  } else if (c === ']' && frame.close === ']') {
    close(lx, 1);
  } else {
    if (c === '(') frame.parens++;
    if (c === ')') frame.parens--;
    lx.take(1);
  }
}

/** `# ...`: everything is inert up to the line break, which is left to the command (it ends the word there). */
function commentStep(lx: LexState, c: string): void {
  if (c === '\n') lx.stack.pop();
  else lx.take(1);
}

/** One step in the innermost frame, at a character that is not a marker. */
export function step(lx: LexState, c: string): void {
  const frame = lx.top;
  switch (frame.kind) {
    case 'cmd':
      return commandStep(lx, frame, c);
    case 'dq':
    case 'param':
      return quotedStep(lx, frame, c);
    case 'sq':
      return singleQuotedStep(lx, c);
    case 'ansi':
      return ansiStep(lx, c);
    case 'arith':
      return arithmeticStep(lx, frame, c);
    case 'comment':
      return commentStep(lx, c);
  }
}
