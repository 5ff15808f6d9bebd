/**
 * The call-cache key's reading of a shell script (docs/tasks.md, "One cache for every language"): a script that is
 * only external programs given literal words, with pipes, `&&`/`||`, `;`, newlines and file redirections between
 * them, means the same to every POSIX shell (sh, dash, bash): the shell only splits and quotes, then execs. Such a
 * script is read into its tokens, quotes removed, so that `'fastp' '-i' 'a.fq'` (a CWL argv), `fastp -i a.fq` (a
 * rendered template) and the same line in a WDL command section are one command. Anything else (an expansion, a
 * glob, a builtin such as `echo` or `cd` whose meaning differs between shells or moves the working directory, an
 * assignment, a compound command) is not read: the key keeps the script's text and the shell that runs it.
 */

/** A word (its value, quotes removed), an operator between words, or a comment (kept: a key never ignores text). */
export type ShellToken = { readonly w: string } | { readonly op: string } | { readonly c: string };

/** Builtins and reserved words: a command starting with one of these is the shell's own, which shells differ on. */
const SHELL_OWN = new Set(
  (
    '! { } [[ ]] case do done elif else esac fi for function if in select then time until while ' +
    '. : [ alias bg break builtin cd command continue declare echo eval exec exit export false fc fg getopts hash jobs kill let ' +
    'local logout popd printf pushd pwd read readonly return set shift shopt source suspend test times trap true type typeset ulimit ' +
    'umask unalias unset wait'
  ).split(' '),
);

/** Characters a word may have outside quotes: nothing the shell expands or treats as syntax. */
const PLAIN = /[A-Za-z0-9_./:=,+@%^-]/;
/** Inside double quotes, `$`, backquotes and backslashes are special (and `!` in an interactive bash). */
const IN_DOUBLE = /[^$`\\!"]/;

/**
 * The tokens of a script made only of external programs and literal words, or undefined when the script is more
 * than that (the key then keeps its text). Separators (`;`, newlines) are one `;`, none at the ends.
 */
export function literalCommands(script: string): ShellToken[] | undefined {
  const tokens: ShellToken[] = [];
  let word: string | undefined;
  let quoted = false;
  let atCommandStart = true;
  const endWord = (): boolean => {
    if (word === undefined) return true;
    if (atCommandStart && (SHELL_OWN.has(word) || word.includes('='))) return false;
    tokens.push({ w: word });
    atCommandStart = false;
    word = undefined;
    quoted = false;
    return true;
  };
  const operator = (op: string, newline = false): boolean => {
    if (!endWord()) return false;
    const last = tokens.findLast((token) => !('c' in token));
    const lastOp = last !== undefined && 'op' in last ? last.op : undefined;
    if (op === ';') {
      // Leading or repeated separators are nothing; a newline may follow `|`, `&&` and `||`, a `;` may not.
      if (last === undefined || lastOp === ';' || (newline && lastOp !== undefined && !isRedirection(lastOp))) return true;
      if (lastOp !== undefined) return false;
    } else if (last === undefined || lastOp !== undefined || (isRedirection(op) && atCommandStart)) return false;
    tokens.push({ op });
    if (!isRedirection(op)) atCommandStart = true;
    return true;
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === ' ' || c === '\t') {
      if (!endWord()) return undefined;
    } else if (c === '\\' && next === '\n') {
      if (!endWord()) return undefined;
      i++;
    } else if (c === '\\' && next !== undefined) {
      word = (word ?? '') + next;
      quoted = true;
      i++;
    } else if (c === '#' && word === undefined) {
      const end = script.indexOf('\n', i);
      tokens.push({ c: script.slice(i + 1, end < 0 ? script.length : end) });
      i = (end < 0 ? script.length : end) - 1;
    } else if (c === '\n' || c === ';') {
      if (next === ';' || !operator(';', c === '\n')) return undefined;
    } else if (c === '&' || c === '|') {
      if (next === c) {
        if (!operator(c + c)) return undefined;
        i++;
      } else if (c === '&' || next === '&' || !operator('|')) return undefined;
    } else if (c === '>' || c === '<') {
      // A descriptor right before it (`2>`) is part of the operator; any other (`3>`), and `>&`, `<<`, `<>`, `>|`, are not read.
      let fd = '';
      if (word !== undefined && !quoted && /^[0-9]+$/.test(word)) {
        if (c !== '>' || (word !== '1' && word !== '2')) return undefined;
        fd = word;
        word = undefined;
      }
      let op = fd + c;
      if (c === '>' && next === '>') op += script[++i];
      if (/[&<>|(]/.test(script[i + 1] ?? '') || !operator(op)) return undefined;
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? '') + script.slice(i + 1, end);
      quoted = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      while (j < script.length && IN_DOUBLE.test(script[j]!)) j++;
      if (script[j] !== '"') return undefined;
      word = (word ?? '') + script.slice(i + 1, j);
      quoted = true;
      i = j;
    } else if (PLAIN.test(c)) {
      word = (word ?? '') + c;
    } else return undefined;
  }
  if (!endWord()) return undefined;
  while (tokens.length > 0 && isSeparator(tokens[tokens.length - 1]!)) tokens.pop();
  const last = tokens.findLast((token) => !('c' in token));
  // A script that ends in an operator, or one that is only separators and comments, is not a command this reads.
  if (last === undefined || 'op' in last) return undefined;
  // A redirection needs its file: `a > ; b` is a syntax error.
  for (const [i, token] of tokens.entries()) if ('op' in token && isRedirection(token.op) && !('w' in (tokens[i + 1] ?? {}))) return undefined;
  return tokens;
}

const isRedirection = (op: string): boolean => /[<>]/.test(op);
const isSeparator = (token: ShellToken): boolean => 'op' in token && token.op === ';';

/** Whether a token is a program's name: the first word of its command (after an operator that is not a redirection). */
export function programPositions(tokens: readonly ShellToken[]): Set<number> {
  const positions = new Set<number>();
  let start = true;
  let afterRedirection = false;
  for (const [i, token] of tokens.entries()) {
    if ('c' in token) continue;
    if ('op' in token) {
      afterRedirection = isRedirection(token.op);
      if (!afterRedirection) start = true;
      continue;
    }
    if (afterRedirection) {
      afterRedirection = false;
      continue;
    }
    if (start) positions.add(i);
    start = false;
  }
  return positions;
}
