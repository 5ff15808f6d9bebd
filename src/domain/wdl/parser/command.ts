import type { StringPart } from '../ast.js';
import type { ExpressionParser } from './expressions.js';
import type { Scanner } from './scanner.js';

/**
 * A task's command (spec "Command Section"): `<<< >>>` with `~{}` placeholders, or `{ }` with `~{}` and `${}`. The text
 * is taken literally (no escapes), then the whitespace common to its lines is removed, with a first line that is
 * empty and a last line of only whitespace.
 */
export function parseCommand(s: Scanner, expressions: ExpressionParser): StringPart[] {
  const open = s.next();
  const heredoc = open.text === '<<<';
  if (!heredoc && open.text !== '{') throw s.unexpected("'<<<' or '{'");
  const text = s.text;
  const parts: StringPart[] = [];
  let literal = '';
  let i = open.end;
  for (;;) {
    if (i >= text.length) throw s.error('this command is not closed', open.start);
    if (heredoc ? text.startsWith('>>>', i) : text[i] === '}') break;
    const c = text[i]!;
    if (text[i + 1] === '{' && (c === '~' || (c === '$' && !heredoc))) {
      if (literal) parts.push(literal);
      literal = '';
      s.reset(i + 2);
      parts.push(expressions.placeholder());
      i = s.offset;
      continue;
    }
    literal += c;
    i++;
  }
  if (literal) parts.push(literal);
  s.reset(i + (heredoc ? 3 : 1));
  return dedent(parts);
}

/** The command without its common leading whitespace; placeholders count as text. */
export function dedent(parts: readonly StringPart[]): StringPart[] {
  // Lines as lists of parts, to measure each line's leading whitespace.
  const lines: StringPart[][] = [[]];
  for (const part of parts) {
    if (typeof part !== 'string') {
      lines[lines.length - 1]!.push(part);
      continue;
    }
    part.split('\n').forEach((piece, index) => {
      if (index > 0) lines.push([]);
      if (piece) lines[lines.length - 1]!.push(piece);
    });
  }
  const blank = (line: StringPart[]) => line.every((part) => typeof part === 'string' && part.trim() === '');
  if (lines.length > 1 && blank(lines[0]!)) lines.shift();
  if (lines.length > 1 && blank(lines[lines.length - 1]!)) lines.pop();
  let common = Infinity;
  for (const line of lines) {
    if (blank(line)) continue;
    const first = line[0];
    const lead = typeof first === 'string' ? /^[ \t]*/.exec(first)![0].length : 0;
    common = Math.min(common, lead);
  }
  if (!Number.isFinite(common)) common = 0;
  const out: StringPart[] = [];
  lines.forEach((line, index) => {
    if (index > 0) out.push('\n');
    line.forEach((part, at) => {
      if (at === 0 && typeof part === 'string') out.push(blank(line) ? part.replace(/^[ \t]*/, '').slice(0) : part.slice(common));
      else out.push(part);
    });
  });
  // Adjacent literal pieces joined, empty ones dropped.
  const joined: StringPart[] = [];
  for (const part of out) {
    const last = joined[joined.length - 1];
    if (typeof part === 'string' && typeof last === 'string') joined[joined.length - 1] = last + part;
    else if (part !== '') joined.push(part);
  }
  return joined;
}
