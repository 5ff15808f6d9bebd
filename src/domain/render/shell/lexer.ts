import { CLOSE, OPEN } from '../sentinel.js';
import { placeValue } from './contexts.js';
import { LexState, type Lexed, type UserValue } from './state.js';
import { step } from './steps.js';

/**
 * The shell lexer: a stack of frames (frames.ts), the innermost of which reads the next construct (its step function
 * in steps.ts) and may push a frame or pop itself. A marked value is placed, whatever the frame, before any step
 * (contexts.ts decides its quoting from the frames around it). A backtick substitution and a here-document's
 * operator are each read in one step, and here-document bodies are read right after the line break that ends
 * the command line that opened them (backticks.ts, heredoc.ts).
 *
 * | frame   | opened by                               | inside it                                    | ended by                      |
 * |---------|-----------------------------------------|----------------------------------------------|-------------------------------|
 * | cmd     | the start of the text; `$(`             | words; quotes, `\`, `$`, backticks, `((` and | the end of the text; `)` at   |
 * |         |                                         | `#` at a word's start, `<<`, `<<-`, `<<<`;   | depth 0 (for `$(`)            |
 * |         |                                         | `( )` counted in `$( )`                      |                               |
 * | dq      | `"`; `$"` outside `"` and arithmetic    | `\`, `$`, backticks                          | `"`                           |
 * | sq      | `'` (in a command, `${ }` outside `"`,  | nothing                                      | `'`                           |
 * |         | arithmetic)                             |                                              |                               |
 * | ansi    | `$'` outside `"` and arithmetic         | `\` (`\'` is ambiguous)                      | `'`                           |
 * | param   | `${`                                    | as in `"`; quotes: `"`, and `'` when the `${`| `}`                           |
 * |         |                                         | is not within `"` (else it is ambiguous)     |                               |
 * | arith   | `$((`, `$[`; `((` at a word's start     | `\`, `$`, backticks, quotes; `( )` counted   | `))` or `]` at depth 0; a     |
 * |         |                                         |                                              | lone `)` there (ambiguous)    |
 * | comment | `#` at a word's start in a command      | nothing                                      | a line break (left to `cmd`)  |
 *
 * Besides the stack, the state (state.ts) remembers what a value's quoting depends on: whether a word has started
 * and already holds an `=`, whether `$` or `$name` was just read, the here-documents waiting for their bodies, and
 * the first construct the shells disagree about (after which values are refused).
 */

/** `feedsArithmetic`: the text is a command substitution (backticks) whose output shell arithmetic reads. */
export function lex(text: string, userValues: readonly UserValue[], feedsArithmetic: boolean): Lexed {
  const lx = new LexState(text, userValues, feedsArithmetic, lex);
  while (lx.at < text.length) {
    const c = text[lx.at]!;
    if (c === OPEN) {
      placeValue(lx);
      continue;
    }
    if (c === CLOSE) lx.cutApart();
    lx.trackVariable(c);
    step(lx, c);
  }
  return lx.finish();
}
