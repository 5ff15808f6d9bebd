import { RenderError } from '../errors.js';
import { CLOSE, OPEN, SENTINEL, stripSentinels } from '../sentinel.js';
import { escapeExpansions, type Member } from './contexts.js';
import { WORD_BREAK } from './frames.js';
import type { LexState, PendingHeredoc } from './state.js';

/**
 * Here-documents, in two steps as the shell reads them: the operator (`<<`, `<<-`) and its delimiter word, read in a
 * command; then, after the line break that ends that command line, the bodies of every here-document the line
 * opened, in order, each up to its delimiter line.
 */

/** The delimiter word at the lexer's position, without its quotes; `quoted` when any part of it was quoted. */
function readDelimiter(lx: LexState): { delimiter: string; quoted: boolean } {
  const { text } = lx;
  let delimiter = '';
  let quoted = false;
  while (lx.at < text.length) {
    const c = text[lx.at]!;
    if (c === OPEN || c === CLOSE) throw new RenderError(`${lx.memberAt(lx.at)} is used as a here-document delimiter`, 'placement');
    if (WORD_BREAK.has(c)) break;
    if (c === "'" || c === '"' || c === '\\') quoted = true;
    if (c === "'") {
      const close = text.indexOf("'", lx.at + 1);
      const stop = close < 0 ? text.length : close;
      delimiter += text.slice(lx.at + 1, stop);
      lx.at = stop + 1;
    } else if (c === '"') {
      let j = lx.at + 1;
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        delimiter += text[j];
        j++;
      }
      lx.at = j + 1;
    } else if (c === '\\') {
      delimiter += text[lx.at + 1] ?? '';
      lx.at += 2;
    } else {
      delimiter += c;
      lx.at++;
    }
  }
  lx.at = Math.min(lx.at, text.length);
  return { delimiter, quoted };
}

/** `<<` or `<<-` and the delimiter after it, copied as written; the body waits for the end of the line. */
export function readHeredoc(lx: LexState): void {
  const { text } = lx;
  const start = lx.at;
  const stripTabs = text[start + 2] === '-';
  lx.at += stripTabs ? 3 : 2;
  while (text[lx.at] === ' ' || text[lx.at] === '\t') lx.at++;
  const { delimiter, quoted } = readDelimiter(lx);
  const raw = text.slice(start, lx.at);
  if (SENTINEL.test(raw)) throw new RenderError('a user value is used as a here-document delimiter', 'placement');
  lx.emit(raw);
  lx.wordHasEquals = false;
  lx.wordStart = false;
  if (delimiter === '') lx.markAmbiguous('a here-document without a delimiter');
  else lx.heredocs.push({ delimiter, stripTabs, quoted });
}

/** What a body has seen so far. */
interface Body {
  /** The current line, values inserted (to see whether it became the delimiter). */
  line: string;
  lineHasValue: boolean;
  /** The member of the first value in the body, for messages (contexts.ts, Member). */
  firstValue: Member | undefined;
  /** The body runs `$(`, `${`, `$[` or backticks (an unquoted one: they are expanded). */
  expansion: boolean;
}

/** A value in a body: inserted as is under a quoted delimiter, escaped otherwise; it may not end the body early. */
function bodyValue(lx: LexState, doc: PendingHeredoc, body: Body, isDelimiter: (line: string) => boolean): void {
  const end = lx.valueEnd(lx.at);
  const value = stripSentinels(lx.text.slice(lx.at + 1, end));
  const member = (): string => lx.memberOf(value);
  lx.refuseIfAmbiguous(member);
  if (lx.feedsArithmetic()) throw new RenderError(`${member()} is used in a here-document inside shell arithmetic`, 'placement');
  if (!doc.quoted && /(^|[^\\])(\\\\)*(\\|\$[A-Za-z_]?[A-Za-z0-9_]*)$/.test(body.line)) {
    throw new RenderError(`${member()} directly follows '$', a variable name or a backslash in a here-document`, 'placement');
  }
  const inserted = doc.quoted ? value : escapeExpansions(value);
  const pieces = (body.line + inserted).split('\n');
  if (pieces.slice(0, -1).some(isDelimiter)) throw new RenderError(`${member()} would end the here-document early`);
  body.line = pieces[pieces.length - 1]!;
  body.lineHasValue = true;
  body.firstValue ??= member;
  lx.emitValue(inserted);
  lx.at = end + 1;
}

/** One body, from the lexer's position through its delimiter line (or to the end of the text). */
function readBody(lx: LexState, doc: PendingHeredoc): void {
  const { text } = lx;
  const isDelimiter = (line: string): boolean => (doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter;
  const body: Body = { line: '', lineHasValue: false, firstValue: undefined, expansion: false };
  while (lx.at < text.length) {
    const c = text[lx.at]!;
    if (c === OPEN) {
      bodyValue(lx, doc, body, isDelimiter);
      continue;
    }
    if (c === CLOSE) lx.cutApart();
    if (c === '\n') {
      const done = isDelimiter(body.line);
      if (done && body.lineHasValue) throw new RenderError(`${body.firstValue?.() ?? 'a user value'} would end the here-document early`);
      lx.take(1);
      body.line = '';
      body.lineHasValue = false;
      if (done) break;
      continue;
    }
    const next = text[lx.at + 1];
    const escape = !doc.quoted && c === '\\' && next !== undefined && next !== OPEN && next !== CLOSE;
    if (!doc.quoted && (c === '`' || (c === '$' && /[({[]/.test(next ?? '')))) body.expansion = true;
    body.line += escape ? c + next : c;
    lx.take(escape ? 2 : 1);
  }
  if (body.expansion && body.firstValue !== undefined) {
    throw new RenderError(
      `${body.firstValue()} is used in a here-document that also runs substitutions ($(...), \${...} or backticks); ` +
        'quote its delimiter or pass the value as an argument',
      'placement',
    );
  }
}

/** After a line break in a command: the bodies of the here-documents that line opened. */
export function heredocBodies(lx: LexState): void {
  while (lx.heredocs.length > 0) readBody(lx, lx.heredocs.shift()!);
}
