/**
 * The lexer's states: one frame per construct the text is inside, innermost last (lexer.ts has the table of what
 * opens and ends each). Command and arithmetic frames count the parentheses they hold, so that `( )` inside them is
 * not taken for their end.
 */
export interface CommandFrame {
  kind: 'cmd';
  /** `)` for `$( )`; nothing for the whole text, which only its end closes. */
  close: '' | ')';
  parens: number;
}

export interface ArithmeticFrame {
  kind: 'arith';
  /** `))` for `$(( ))` and `(( ))`, `]` for `$[ ]`. */
  close: '))' | ']';
  parens: number;
}

export interface ParameterFrame {
  kind: 'param';
  /** The `${` was opened inside double quotes (or arithmetic): quotes inside it are read differently. */
  inDq: boolean;
}

export type Frame = CommandFrame | ArithmeticFrame | ParameterFrame | { kind: 'dq' } | { kind: 'sq' } | { kind: 'ansi' } | { kind: 'comment' };

export const commandFrame = (close: CommandFrame['close']): CommandFrame => ({ kind: 'cmd', close, parens: 0 });
export const arithmeticFrame = (close: ArithmeticFrame['close']): ArithmeticFrame => ({ kind: 'arith', close, parens: 0 });
export const quoteFrame = (quote: "'" | '"'): Frame => ({ kind: quote === "'" ? 'sq' : 'dq' });

/** The characters that end a word in a command (and a here-document's delimiter). */
export const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

/** How an error names a construct the text leaves open at its end. */
export const FRAME_NAMES: Record<Frame['kind'], string> = {
  cmd: 'a command substitution',
  dq: 'a double quote',
  sq: 'a single quote',
  ansi: "a $'",
  param: 'a ${',
  arith: 'an arithmetic expansion',
  comment: 'a comment',
};

/**
 * The construct a `$` at `at` opens, with the characters that open it, or undefined for a plain `$` (a variable
 * name, or nothing, follows). `$'` and `$"` are quotes only where quotes are: not inside double quotes or arithmetic.
 */
export function openedByDollar(text: string, at: number, inDq: boolean): { opener: string; frame: Frame } | undefined {
  const next = text[at + 1];
  if (next === '(' && text[at + 2] === '(') return { opener: '$((', frame: arithmeticFrame('))') };
  if (next === '(') return { opener: '$(', frame: commandFrame(')') };
  if (next === '{') return { opener: '${', frame: { kind: 'param', inDq } };
  if (next === '[') return { opener: '$[', frame: arithmeticFrame(']') };
  if (next === "'" && !inDq) return { opener: "$'", frame: { kind: 'ansi' } };
  if (next === '"' && !inDq) return { opener: '$"', frame: { kind: 'dq' } };
  return undefined;
}
