import { RenderError } from './errors.js';
import { lex } from './shell/lexer.js';
import type { UserValue } from './shell/state.js';

/**
 * Turning rendered template text (user values still wrapped in sentinels, sentinel.ts) into a
 * command for `sh -c`: a small POSIX-sh lexer walks the text, keeps a stack of quoting contexts,
 * and replaces every wrapped value by that value quoted for the context it sits in. It has to
 * be right for dash and for bash (also as `sh`, i.e. in POSIX mode): images differ.
 *
 * Contexts and what a value becomes there:
 *  - unquoted (top level, inside `$( )`, inside an unquoted `${ }`): left bare when it only holds
 *    `[A-Za-z0-9_./:=,+@%-]`, otherwise single-quoted with `'\''` for each `'`. It is quoted too
 *    when it could complete an assignment word (`{{x}}=1`, or `X{{x}}` with x `=1`) or extend a
 *    `$name` written just before it.
 *  - inside "double quotes": `$`, `` ` ``, `"` and `\` are backslash-escaped (after `$name`, an
 *    empty `""` is put first so the value does not extend the name).
 *  - inside 'single quotes': each `'` becomes `'\''` (close, escaped quote, reopen).
 *  - inside backticks: the substitution's text is unescaped as the shell does (`\\`, `` \` ``,
 *    `\$`), lexed as a command of its own, and the result escaped again; nesting works the same.
 *  - inside a here-document body: inserted as is when the delimiter is quoted, with `\`, `$` and
 *    `` ` `` escaped when not; no line may become the delimiter through a value.
 *  - inside a `#` comment: anything is inert except a line break, which is refused.
 *  - inside arithmetic (`$(( ))`, `(( ))`, `$[ ]`), where shells expand and evaluate the text
 *    whatever quotes it holds: only an integer is accepted. A command substitution inside it is a
 *    command again (`$(( $(wc -l < FILE) / 4 ))`: FILE is quoted as a word), except that its values
 *    may not hold `$`, `` ` ``, `[` or `]`: bash evaluates the substitution's output and expands
 *    `a[$(...)]` in it again, so a command that prints its argument would run it.
 *
 * Refused with a RenderError rather than guessed (the shells disagree, or no quoting is safe):
 * a value right after a backslash or a `$`; inside `$'...'`; inside a `${ }` within double
 * quotes (bash in POSIX mode reads `'` there as a quote, dash does not); inside backticks within
 * double quotes (`\"` there is unspecified); as a here-document delimiter, or in an unquoted
 * here-document that also runs `$(`, `${`, `$[` or backticks; after a `case` inside `$( )` (its
 * `pat)` would close the substitution for a lexer that counts parentheses), after `\'` in
 * `$'...'` or a `'` in a double-quoted `${ }`; any value when the text leaves a quote or
 * substitution open at its end.
 *
 * Last line of defence: a user value holding characters special to the shell must not appear in
 * the template's own text between the values (it would have reached the command without its
 * markers, e.g. through a filter that dropped them).
 *
 * The lexer is in shell/: lexer.ts has the table of its states (frames), steps.ts what each reads,
 * contexts.ts what a value becomes in each.
 */

export { quoteWord } from './shell/contexts.js';
export type { UserValue } from './shell/state.js';

/** Characters that make a value worth looking for in the template's own text. */
const SHELL_SPECIAL = /[^A-Za-z0-9_./:=,+@%-]/;

/** Replace every wrapped user value in rendered text by its quoted form (see above). */
export function finishCommand(text: string, userValues: readonly UserValue[]): string {
  const { out, literals } = lex(text, userValues, false);
  for (const { member, value } of userValues) {
    if (value.length < 2 || !SHELL_SPECIAL.test(value)) continue;
    if (literals.some((literal) => literal.includes(value))) throw new RenderError(`${member} reached the command unquoted`);
  }
  return out;
}
