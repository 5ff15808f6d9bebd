import { RenderError } from './errors.js';
import { CLOSE, OPEN, stripSentinels } from './sentinel.js';

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
 */

export interface UserValue {
  /** Member that holds it, e.g. `parameters.name` or `inputs.reads[1]`, for error messages. */
  member: string;
  value: string;
}

type Frame =
  | { kind: 'cmd'; close: '' | ')'; parens: number }
  | { kind: 'dq' }
  | { kind: 'sq' }
  | { kind: 'ansi' }
  | { kind: 'param'; inDq: boolean }
  | { kind: 'arith'; close: '))' | ']'; parens: number }
  | { kind: 'comment' };

const SAFE_BARE = /^[A-Za-z0-9_./:=,+@%-]+$/;
/** Characters that make a value worth looking for in the template's own text. */
const SHELL_SPECIAL = /[^A-Za-z0-9_./:=,+@%-]/;
const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const INTEGER = /^[+-]?[0-9]+$/;
const MARKER = /[\uE000\uE001]/;

/** Quote a value for an unquoted context (as one word). */
export function quoteWord(value: string, force = false): string {
  if (!force && SAFE_BARE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const escapeDoubleQuoted = (value: string): string => value.replace(/[$`"\\]/g, (c) => `\\${c}`);
const escapeSingleQuoted = (value: string): string => value.replace(/'/g, `'\\''`);
const escapeBackticks = (value: string): string => value.replace(/[\\`$]/g, (c) => `\\${c}`);

const OPEN_NAMES: Record<Frame['kind'], string> = {
  cmd: 'a command substitution',
  dq: 'a double quote',
  sq: 'a single quote',
  ansi: "a $'",
  param: 'a ${',
  arith: 'an arithmetic expansion',
  comment: 'a comment',
};

interface Lexed {
  out: string;
  /** The template's own text between values. */
  literals: string[];
  spans: number;
  ambiguous: string | undefined;
}

/** `feedsArithmetic`: the text is a command substitution (backticks) whose output shell arithmetic reads. */
function lex(text: string, userValues: readonly UserValue[], feedsArith: boolean): Lexed {
  const stack: Frame[] = [{ kind: 'cmd', close: '', parens: 0 }];
  const literals: string[] = [];
  let out = '';
  let literal = '';
  let i = 0;
  /** In a cmd frame: at the start of a word (for `#` and `((`). */
  let wordStart = true;
  /** In a cmd frame: the text of the current word so far (for the assignment rule). */
  let word = '';
  /** The last thing consumed was an unescaped `$`. */
  let dollar = false;
  /** The last things consumed were `$` and a variable name, which a bare value would extend. */
  let varName = false;
  let ambiguous: string | undefined;
  let spans = 0;
  let openAtEnd: string | undefined;
  const heredocs: { delimiter: string; stripTabs: boolean; quoted: boolean }[] = [];

  const top = (): Frame => stack[stack.length - 1]!;
  const emit = (s: string): void => {
    literal += s;
    out += s;
  };
  const emitValue = (s: string): void => {
    literals.push(literal);
    literal = '';
    out += s;
    spans++;
  };
  const name = (content: string): string =>
    (
      userValues.find((u) => u.value === content) ??
      userValues.find((u) => u.value !== '' && content.includes(u.value)) ??
      userValues.find((u) => content !== '' && u.value.includes(content))
    )?.member ?? 'a user value';
  /** The member whose value starts at `at` (for messages). */
  const nameAt = (at: number): string => {
    const close = text.indexOf(CLOSE, at);
    return name(stripSentinels(text.slice(at, close < 0 ? text.length : close)));
  };
  /** The end (index of the closing marker) of the value that opens at `at`. */
  const spanEnd = (at: number): number => {
    let depth = 0;
    for (let end = at; end < text.length; end++) {
      if (text[end] === OPEN) depth++;
      else if (text[end] === CLOSE && --depth === 0) return end;
    }
    throw new RenderError(`${nameAt(at)} was cut apart by the template (e.g. by slicing a longer string); it cannot be quoted`);
  };
  const cutApart = (): never => {
    throw new RenderError(`${name(stripSentinels(text.slice(0, i)).split(/\s/).pop() ?? '')} was cut apart by the template; it cannot be quoted`);
  };
  const push = (frame: Frame): void => {
    stack.push(frame);
    if (frame.kind === 'cmd') {
      wordStart = true;
      word = '';
    }
  };
  const pop = (): void => {
    stack.pop();
    wordStart = false;
    word += ')';
  };
  /**
   * Whether the text here is read as shell arithmetic. The innermost command or arithmetic frame decides: a command
   * substitution inside `$(( ))` is a command again (`$(( $(wc -l < FILE) / 4 ))`), `$(( ))` inside `$( )` is
   * arithmetic, and quotes between them change nothing (shells evaluate `$(( "1" ))` as arithmetic).
   */
  const arithmetic = (): boolean => stack.findLast((f) => f.kind === 'cmd' || f.kind === 'arith')!.kind === 'arith';
  /**
   * Whether the text is a command whose output shell arithmetic reads: bash evaluates that output as an expression
   * and expands `$(...)` inside an `a[...]` in it again, so `$(( $(echo 'a[$(id)]') ))` runs `id`.
   */
  const feedsArithmetic = (): boolean => feedsArith || stack.some((f) => f.kind === 'arith');

  const span = (): void => {
    const end = spanEnd(i);
    const value = stripSentinels(text.slice(i + 1, end));
    const member = name(value);
    const frame = top();
    if (ambiguous) throw new RenderError(`${member} is used after ${ambiguous}; the template is ambiguous to the shell there`, 'placement');
    if (dollar) throw new RenderError(`${member} directly follows '$' in cmd_template, where it would name a variable`, 'placement');
    let quoted: string;
    if (arithmetic()) {
      if (varName) throw new RenderError(`${member} directly follows a variable name inside shell arithmetic`, 'placement');
      if (!INTEGER.test(value)) {
        // A file path is never an integer: no task could use the template as it is.
        const failure = /^(inputs|outputs)\./.test(member) ? 'placement' : 'value';
        throw new RenderError(`${member} is used inside shell arithmetic, where only an integer is safe`, failure);
      }
      quoted = value;
    } else {
      if (feedsArithmetic() && /[$`[\]]/.test(value)) {
        const why = 'which bash expands again';
        throw new RenderError(`${member} holds '$', '\`', '[' or ']' and is used in a command substitution inside shell arithmetic, ${why}`);
      }
      switch (frame.kind) {
        case 'cmd':
        case 'param': {
          if (frame.kind === 'param' && frame.inDq) {
            throw new RenderError(`${member} is used inside \${...} within double quotes, which shells parse differently`, 'placement');
          }
          const assignment = (value.includes('=') && !word.includes('=')) || text[end + 1] === '=';
          quoted = quoteWord(value, assignment || varName);
          break;
        }
        case 'dq':
          quoted = (varName ? '""' : '') + escapeDoubleQuoted(value);
          break;
        case 'sq':
          quoted = escapeSingleQuoted(value);
          break;
        case 'comment':
          if (/[\n\r]/.test(value)) throw new RenderError(`${member} holds a line break and is used inside a shell comment`);
          quoted = quoteWord(value);
          break;
        case 'ansi':
          throw new RenderError(`${member} is used inside $'...' quoting, which only bash knows`, 'placement');
        case 'arith':
          throw new Error('unreachable: arithmetic is handled above');
      }
    }
    emitValue(quoted);
    word += quoted;
    wordStart = false;
    i = end + 1;
  };

  /**
   * A backtick substitution: its extent is found first (up to the next unescaped backtick
   * outside values, whatever quotes are inside, as the shell does), its text is unescaped, lexed
   * as a command of its own, and escaped again.
   */
  const backticks = (): void => {
    let j = i + 1;
    let inner = '';
    while (j < text.length && text[j] !== '`') {
      if (text[j] === OPEN) {
        // A value is data: its characters neither end the substitution nor get unescaped.
        const end = spanEnd(j);
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
    const closed = j < text.length;
    if (!MARKER.test(inner)) {
      emit(text.slice(i, closed ? j + 1 : text.length));
      if (!closed) openAtEnd ??= 'a backtick substitution';
    } else {
      const member = nameAt(i + inner.search(MARKER));
      if (!closed) throw new RenderError(`cmd_template leaves a backtick substitution open at its end; ${member} cannot be quoted safely`, 'placement');
      if (ambiguous) throw new RenderError(`${member} is used after ${ambiguous}; the template is ambiguous to the shell there`, 'placement');
      const cmd = stack.findLastIndex((f) => f.kind === 'cmd');
      if (stack.slice(cmd + 1).some((f) => f.kind === 'dq' || (f.kind === 'param' && f.inDq))) {
        const instead = 'use $(...) in cmd_template';
        throw new RenderError(`${member} is used inside backticks within double quotes, which shells parse differently; ${instead}`, 'placement');
      }
      const nested = lex(inner, userValues, feedsArithmetic());
      ambiguous ??= nested.ambiguous;
      literals.push(literal, ...nested.literals);
      literal = '';
      out += `\`${escapeBackticks(nested.out)}\``;
      spans += nested.spans;
    }
    i = closed ? j + 1 : text.length;
    wordStart = false;
    word += '`';
  };

  /** `$` followed by an opening construct; returns false for a plain `$`. */
  const dollarConstruct = (inDq: boolean): boolean => {
    const next = text[i + 1];
    let frame: Frame;
    let opener: string;
    if (next === '(' && text[i + 2] === '(') [frame, opener] = [{ kind: 'arith', close: '))', parens: 0 }, '$(('];
    else if (next === '(') [frame, opener] = [{ kind: 'cmd', close: ')', parens: 0 }, '$('];
    else if (next === '{') [frame, opener] = [{ kind: 'param', inDq }, '${'];
    else if (next === '[') [frame, opener] = [{ kind: 'arith', close: ']', parens: 0 }, '$['];
    else if (next === "'" && !inDq) [frame, opener] = [{ kind: 'ansi' }, "$'"];
    else if (next === '"' && !inDq) [frame, opener] = [{ kind: 'dq' }, '$"'];
    else return false;
    emit(opener);
    i += opener.length;
    word += '$';
    push(frame);
    return true;
  };

  /** A backslash and the character it escapes. */
  const escaped = (): void => {
    const next = text[i + 1];
    if (next === OPEN) throw new RenderError(`${nameAt(i + 1)} directly follows a backslash in cmd_template`, 'placement');
    if (next === CLOSE) cutApart();
    emit(next === undefined ? '\\' : `\\${next}`);
    i += next === undefined ? 1 : 2;
  };

  const readHeredoc = (): void => {
    const stripTabs = text[i + 2] === '-';
    const start = i;
    i += stripTabs ? 3 : 2;
    while (text[i] === ' ' || text[i] === '\t') i++;
    let delimiter = '';
    let quoted = false;
    while (i < text.length) {
      const c = text[i]!;
      if (c === OPEN || c === CLOSE) throw new RenderError(`${nameAt(i)} is used as a here-document delimiter`, 'placement');
      if (WORD_BREAK.has(c)) break;
      if (c === "'" || c === '"' || c === '\\') quoted = true;
      if (c === "'") {
        const close = text.indexOf("'", i + 1);
        const stop = close < 0 ? text.length : close;
        delimiter += text.slice(i + 1, stop);
        i = stop + 1;
      } else if (c === '"') {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') {
          if (text[j] === '\\' && j + 1 < text.length) j++;
          delimiter += text[j];
          j++;
        }
        i = j + 1;
      } else if (c === '\\') {
        delimiter += text[i + 1] ?? '';
        i += 2;
      } else {
        delimiter += c;
        i++;
      }
    }
    i = Math.min(i, text.length);
    const raw = text.slice(start, i);
    if (MARKER.test(raw)) throw new RenderError('a user value is used as a here-document delimiter', 'placement');
    emit(raw);
    word = '';
    wordStart = false;
    if (delimiter === '') ambiguous ??= 'a here-document without a delimiter';
    else heredocs.push({ delimiter, stripTabs, quoted });
  };

  /** After a newline: the bodies of pending here-documents. */
  const heredocBodies = (): void => {
    while (heredocs.length > 0) {
      const { delimiter, stripTabs, quoted } = heredocs.shift()!;
      const isDelimiter = (line: string): boolean => (stripTabs ? line.replace(/^\t+/, '') : line) === delimiter;
      let line = '';
      let lineHasValue = false;
      let firstValue: string | undefined;
      let expansion = false;
      while (i < text.length) {
        const c = text[i]!;
        if (c === OPEN) {
          const end = spanEnd(i);
          const value = stripSentinels(text.slice(i + 1, end));
          const member = name(value);
          if (ambiguous) throw new RenderError(`${member} is used after ${ambiguous}; the template is ambiguous to the shell there`, 'placement');
          if (feedsArithmetic()) throw new RenderError(`${member} is used in a here-document inside shell arithmetic`, 'placement');
          if (!quoted && /(^|[^\\])(\\\\)*(\\|\$[A-Za-z_]?[A-Za-z0-9_]*)$/.test(line)) {
            throw new RenderError(`${member} directly follows '$', a variable name or a backslash in a here-document`, 'placement');
          }
          const inserted = quoted ? value : value.replace(/[\\$`]/g, (ch) => `\\${ch}`);
          const pieces = (line + inserted).split('\n');
          if (pieces.slice(0, -1).some(isDelimiter)) throw new RenderError(`${member} would end the here-document early`);
          line = pieces[pieces.length - 1]!;
          lineHasValue = true;
          firstValue ??= member;
          emitValue(inserted);
          i = end + 1;
          continue;
        }
        if (c === CLOSE) cutApart();
        if (c === '\n') {
          const done = isDelimiter(line);
          if (done && lineHasValue) throw new RenderError(`${firstValue ?? 'a user value'} would end the here-document early`);
          emit(c);
          i++;
          line = '';
          lineHasValue = false;
          if (done) break;
          continue;
        }
        if (!quoted && c === '\\' && i + 1 < text.length && text[i + 1] !== OPEN && text[i + 1] !== CLOSE) {
          emit(c + text[i + 1]);
          line += c + text[i + 1];
          i += 2;
          continue;
        }
        if (!quoted && (c === '`' || (c === '$' && /[({[]/.test(text[i + 1] ?? '')))) expansion = true;
        emit(c);
        line += c;
        i++;
      }
      if (expansion && firstValue !== undefined) {
        throw new RenderError(
          `${firstValue} is used in a here-document that also runs substitutions ($(...), \${...} or backticks); quote its delimiter or pass the value as an argument`,
          'placement',
        );
      }
    }
  };

  while (i < text.length) {
    const c = text[i]!;
    if (c === OPEN) {
      span();
      dollar = false;
      varName = false;
      continue;
    }
    if (c === CLOSE) cutApart();
    const frame = top();
    if (dollar && /[A-Za-z_]/.test(c)) varName = true;
    else if (varName && !/[A-Za-z0-9_]/.test(c)) varName = false;
    dollar = false;
    switch (frame.kind) {
      case 'cmd': {
        if (c === '\\') {
          const continuation = text[i + 1] === '\n';
          escaped();
          if (!continuation) {
            wordStart = false;
            word += '\\';
          }
        } else if (c === "'" || c === '"') {
          emit(c);
          i++;
          word += c;
          push({ kind: c === "'" ? 'sq' : 'dq' });
        } else if (c === '`') {
          backticks();
        } else if (c === '$') {
          if (dollarConstruct(false)) break;
          emit(c);
          i++;
          word += c;
          wordStart = false;
          dollar = true;
        } else if (c === '(' && text[i + 1] === '(' && wordStart) {
          emit('((');
          i += 2;
          push({ kind: 'arith', close: '))', parens: 0 });
        } else if (c === ')' && frame.close === ')' && frame.parens === 0) {
          emit(c);
          i++;
          pop();
        } else if (c === '#' && wordStart) {
          emit(c);
          i++;
          push({ kind: 'comment' });
        } else if (c === '<' && text.startsWith('<<', i) && !text.startsWith('<<<', i)) {
          readHeredoc();
        } else if (c === '<' && text.startsWith('<<<', i)) {
          // bash's here-string: the next word is an ordinary word.
          emit('<<<');
          i += 3;
          wordStart = true;
          word = '';
        } else {
          if (frame.close === ')' && c === '(') frame.parens++;
          if (frame.close === ')' && c === ')') frame.parens--;
          if (wordStart && frame.close === ')' && /^case[ \t\n]/.test(text.slice(i, i + 5))) ambiguous ??= "a 'case' inside $(...)";
          emit(c);
          i++;
          if (c === '\n') heredocBodies();
          if (WORD_BREAK.has(c)) {
            wordStart = true;
            word = '';
          } else {
            wordStart = false;
            word += c;
          }
        }
        break;
      }
      case 'dq':
      case 'param': {
        const inDq = frame.kind === 'dq' || frame.inDq;
        if (c === '\\') {
          escaped();
        } else if (c === '`') {
          backticks();
        } else if (c === '$') {
          if (dollarConstruct(inDq)) break;
          emit(c);
          i++;
          dollar = true;
        } else if ((frame.kind === 'dq' && c === '"') || (frame.kind === 'param' && c === '}')) {
          emit(c);
          i++;
          pop();
        } else if (frame.kind === 'param' && (c === '"' || (c === "'" && !frame.inDq))) {
          emit(c);
          i++;
          push({ kind: c === "'" ? 'sq' : 'dq' });
        } else {
          if (frame.kind === 'param' && c === "'") ambiguous ??= "a ' inside ${...} within double quotes";
          emit(c);
          i++;
        }
        break;
      }
      case 'sq':
        emit(c);
        i++;
        if (c === "'") pop();
        break;
      case 'ansi':
        if (c === '\\') {
          if (text[i + 1] === "'") ambiguous ??= "\\' inside $'...'";
          escaped();
        } else {
          emit(c);
          i++;
          if (c === "'") pop();
        }
        break;
      case 'arith': {
        if (c === '\\') {
          escaped();
        } else if (c === '`') {
          backticks();
        } else if (c === '$') {
          if (dollarConstruct(true)) break;
          emit(c);
          i++;
          dollar = true;
        } else if (c === "'" || c === '"') {
          emit(c);
          i++;
          push({ kind: c === "'" ? 'sq' : 'dq' });
        } else if (c === ')' && frame.parens === 0) {
          if (frame.close === '))' && text[i + 1] === ')') {
            emit('))');
            i += 2;
          } else {
            ambiguous ??= 'an unbalanced ) in shell arithmetic';
            emit(c);
            i++;
          }
          pop();
        } else if (c === ']' && frame.close === ']') {
          emit(c);
          i++;
          pop();
        } else {
          if (c === '(') frame.parens++;
          if (c === ')') frame.parens--;
          emit(c);
          i++;
        }
        break;
      }
      case 'comment':
        if (c === '\n') {
          stack.pop();
          break;
        }
        emit(c);
        i++;
        break;
    }
  }
  literals.push(literal);

  const frames = stack.filter((f) => f.kind !== 'comment');
  const open = frames.length > 1 ? OPEN_NAMES[frames[frames.length - 1]!.kind] : openAtEnd;
  if (spans > 0 && open !== undefined) {
    throw new RenderError(`cmd_template leaves ${open} open at its end; user values cannot be quoted safely`, 'placement');
  }
  return { out, literals, spans, ambiguous };
}

/** Replace every wrapped user value in rendered text by its quoted form (see above). */
export function finishCommand(text: string, userValues: readonly UserValue[]): string {
  const { out, literals } = lex(text, userValues, false);
  for (const { member, value } of userValues) {
    if (value.length < 2 || !SHELL_SPECIAL.test(value)) continue;
    if (literals.some((literal) => literal.includes(value))) throw new RenderError(`${member} reached the command unquoted`);
  }
  return out;
}
