import { RenderError } from '../errors.js';
import { stripSentinels } from '../sentinel.js';
import type { Frame } from './frames.js';
import type { LexState } from './state.js';

/**
 * What a user value becomes in the context the lexer found it in (the table of ../shell.ts): quoted as a word,
 * escaped for double quotes or single quotes, taken only as an integer in arithmetic, or refused.
 */

const SAFE_BARE = /^[A-Za-z0-9_./:=,+@%-]+$/;
const INTEGER = /^[+-]?[0-9]+$/;

/** Quote a value for an unquoted context (as one word). */
export function quoteWord(value: string, force = false): string {
  if (!force && SAFE_BARE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const escapeDoubleQuoted = (value: string): string => value.replace(/[$`"\\]/g, (c) => `\\${c}`);
const escapeSingleQuoted = (value: string): string => value.replace(/'/g, `'\\''`);
/** Backslash the characters still live inside backticks and in an unquoted here-document: `\`, `$` and backtick. */
export const escapeExpansions = (value: string): string => value.replace(/[\\`$]/g, (c) => `\\${c}`);

/**
 * The member a value came from, for a refusal's message. Asked only when refusing: finding it searches every user
 * value, which for a command of a thousand file paths would cost more than the lexing itself.
 */
export type Member = () => string;

/** Where a value sits, beyond the innermost frame. */
interface Placement {
  /** The innermost command or arithmetic frame is arithmetic. */
  arithmetic: boolean;
  /** The value is in a command whose output arithmetic reads. */
  feedsArithmetic: boolean;
  /** Right after `$name`. */
  afterVarName: boolean;
  /** In a command word, the value could make the word an assignment: it holds the word's first `=`, or `=` follows it. */
  assignment: boolean;
}

/** Inside arithmetic, where shells expand and evaluate the text whatever quotes it holds: only an integer. */
function arithmeticValue(value: string, member: Member, afterVarName: boolean): string {
  if (afterVarName) throw new RenderError(`${member()} directly follows a variable name inside shell arithmetic`, 'placement');
  if (!INTEGER.test(value)) {
    // A file path is never an integer: no task could use the template as it is.
    const failure = /^(inputs|outputs)\./.test(member()) ? 'placement' : 'value';
    throw new RenderError(`${member()} is used inside shell arithmetic, where only an integer is safe`, failure);
  }
  return value;
}

/** The quoted form of `value` in `frame`, or the reason it cannot be placed there. */
export function quoteFor(frame: Frame, value: string, member: Member, where: Placement): string {
  if (where.arithmetic) return arithmeticValue(value, member, where.afterVarName);
  if (where.feedsArithmetic && /[$`[\]]/.test(value)) {
    const why = 'which bash expands again';
    throw new RenderError(`${member()} holds '$', '\`', '[' or ']' and is used in a command substitution inside shell arithmetic, ${why}`);
  }
  switch (frame.kind) {
    case 'cmd':
    case 'param':
      if (frame.kind === 'param' && frame.inDq) {
        throw new RenderError(`${member()} is used inside \${...} within double quotes, which shells parse differently`, 'placement');
      }
      return quoteWord(value, where.assignment || where.afterVarName);
    case 'dq':
      // After `$name`, an empty "" first so that the value does not extend the name.
      return (where.afterVarName ? '""' : '') + escapeDoubleQuoted(value);
    case 'sq':
      return escapeSingleQuoted(value);
    case 'comment':
      if (/[\n\r]/.test(value)) throw new RenderError(`${member()} holds a line break and is used inside a shell comment`);
      return quoteWord(value);
    case 'ansi':
      throw new RenderError(`${member()} is used inside $'...' quoting, which only bash knows`, 'placement');
    case 'arith':
      throw new Error('unreachable: an arithmetic frame makes the placement arithmetic');
  }
}

/** The marked value at the lexer's position: replaced by its quoted form, or refused. */
export function placeValue(lx: LexState): void {
  const { text } = lx;
  const end = lx.valueEnd(lx.at);
  const value = stripSentinels(text.slice(lx.at + 1, end));
  const member = (): string => lx.memberOf(value);
  lx.refuseIfAmbiguous(member);
  if (lx.afterDollar) throw new RenderError(`${member()} directly follows '$' in cmd_template, where it would name a variable`, 'placement');
  const quoted = quoteFor(lx.top, value, member, {
    arithmetic: lx.inArithmetic(),
    feedsArithmetic: lx.feedsArithmetic(),
    afterVarName: lx.afterVarName,
    assignment: (value.includes('=') && !lx.wordHasEquals) || text[end + 1] === '=',
  });
  lx.emitValue(quoted);
  // Quoting neither adds nor removes an `=`.
  if (value.includes('=')) lx.wordHasEquals = true;
  lx.wordStart = false;
  lx.afterDollar = false;
  lx.afterVarName = false;
  lx.at = end + 1;
}
