import { RenderError } from '../errors.js';
import { CLOSE, OPEN, stripSentinels } from '../sentinel.js';
import { commandFrame, FRAME_NAMES, type Frame } from './frames.js';

export interface UserValue {
  /** Member that holds it, e.g. `parameters.name` or `inputs.reads[1]`, for error messages. */
  member: string;
  value: string;
}

/** What lexing a text gives. */
export interface Lexed {
  /** The text with every marked value replaced by its quoted form. */
  out: string;
  /** The template's own text between values. */
  literals: string[];
  /** How many values were placed. */
  spans: number;
  /** The first construct after which the shells disagree on what follows, if any (a value after it is refused). */
  ambiguous: string | undefined;
}

/** Lexes the text of a backtick substitution as a command of its own (lexer.ts); `feedsArithmetic` as for the outer text. */
export type LexCommand = (text: string, userValues: readonly UserValue[], feedsArithmetic: boolean) => Lexed;

/** A here-document whose operator was read and whose body starts after the current line. */
export interface PendingHeredoc {
  delimiter: string;
  /** `<<-`: leading tabs are stripped from the body's lines, so a line of tabs and the delimiter ends it. */
  stripTabs: boolean;
  /** Some part of the delimiter was quoted: the body is inserted as is, nothing in it is expanded. */
  quoted: boolean;
}

/**
 * Everything the lexer knows at one point of the text: where it is, the stack of frames, what it wrote so far, and
 * the few facts about the characters just read that decide how a value right here is quoted. The step functions
 * (steps.ts, heredoc.ts, backticks.ts, contexts.ts) read and move it; it does no lexing itself.
 */
export class LexState {
  readonly stack: Frame[] = [commandFrame('')];
  /** The template's own text between values, finished pieces. */
  readonly literals: string[] = [];
  /** Here-documents whose bodies start after the next line break. */
  readonly heredocs: PendingHeredoc[] = [];
  /** Index of the next character to read. */
  at = 0;
  out = '';
  /** The template's own text since the last value. */
  literal = '';
  spans = 0;
  ambiguous: string | undefined;
  /** A backtick substitution without values runs to the end of the text (only an error if values were placed). */
  openAtEnd: string | undefined;
  /** In a command frame: at the start of a word (where `#`, `((` and `case` mean something). */
  wordStart = true;
  /** The current word already holds an `=` (so a value in it cannot be what makes it an assignment). */
  wordHasEquals = false;
  /** The last thing read was an unescaped `$`. */
  afterDollar = false;
  /** The last things read were `$` and a variable name, which a bare value would extend. */
  afterVarName = false;

  constructor(
    readonly text: string,
    readonly userValues: readonly UserValue[],
    /** The text is a backtick substitution whose output shell arithmetic reads. */
    readonly feedsArith: boolean,
    readonly lexCommand: LexCommand,
  ) {}

  get top(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  /** Write the template's own text. */
  emit(s: string): void {
    this.literal += s;
    this.out += s;
  }

  /** Copy the next `n` characters of the text to the output and move past them. */
  take(n: number): void {
    this.emit(this.text.slice(this.at, this.at + n));
    this.at += n;
  }

  /** Write a placed value (ending the current piece of the template's own text). */
  emitValue(quoted: string): void {
    this.literals.push(this.literal);
    this.literal = '';
    this.out += quoted;
    this.spans++;
  }

  push(frame: Frame): void {
    this.stack.push(frame);
    if (frame.kind === 'cmd') {
      this.wordStart = true;
      this.wordHasEquals = false;
    }
  }

  pop(): void {
    this.stack.pop();
    this.wordStart = false;
  }

  /** Start a new word (after a word break, a here-string operator, a `$(`). */
  breakWord(): void {
    this.wordStart = true;
    this.wordHasEquals = false;
  }

  /** Follow `$name` across a character that is not a value: a bare value right after it would extend the name. */
  trackVariable(c: string): void {
    if (this.afterDollar && /[A-Za-z_]/.test(c)) this.afterVarName = true;
    else if (this.afterVarName && !/[A-Za-z0-9_]/.test(c)) this.afterVarName = false;
    this.afterDollar = false;
  }

  /** Remember the first construct the shells read differently. */
  markAmbiguous(construct: string): void {
    this.ambiguous ??= construct;
  }

  /**
   * Whether the text here is read as shell arithmetic. The innermost command or arithmetic frame decides: a command
   * substitution inside `$(( ))` is a command again (`$(( $(wc -l < FILE) / 4 ))`), `$(( ))` inside `$( )` is
   * arithmetic, and quotes between them change nothing (shells evaluate `$(( "1" ))` as arithmetic).
   */
  inArithmetic(): boolean {
    return this.stack.findLast((f) => f.kind === 'cmd' || f.kind === 'arith')!.kind === 'arith';
  }

  /**
   * Whether the text is a command whose output shell arithmetic reads: bash evaluates that output as an expression
   * and expands `$(...)` inside an `a[...]` in it again, so `$(( $(echo 'a[$(id)]') ))` runs `id`.
   */
  feedsArithmetic(): boolean {
    return this.feedsArith || this.stack.some((f) => f.kind === 'arith');
  }

  /** The member a value (as it reached the text, maybe through a filter) came from, for messages. */
  memberOf(content: string): string {
    const { userValues } = this;
    const found =
      userValues.find((u) => u.value === content) ??
      userValues.find((u) => u.value !== '' && content.includes(u.value)) ??
      userValues.find((u) => content !== '' && u.value.includes(content));
    return found?.member ?? 'a user value';
  }

  /** The member whose value starts at (or shortly after) `at`. */
  memberAt(at: number): string {
    const close = this.text.indexOf(CLOSE, at);
    return this.memberOf(stripSentinels(this.text.slice(at, close < 0 ? this.text.length : close)));
  }

  /** The index of the marker that closes the value opening at `at`. */
  valueEnd(at: number): number {
    const { text } = this;
    let depth = 0;
    for (let end = at; end < text.length; end++) {
      if (text[end] === OPEN) depth++;
      else if (text[end] === CLOSE && --depth === 0) return end;
    }
    throw new RenderError(`${this.memberAt(at)} was cut apart by the template (e.g. by slicing a longer string); it cannot be quoted`);
  }

  /** A closing marker without its opening one, here. */
  cutApart(): never {
    const before = stripSentinels(this.text.slice(0, this.at)).split(/\s/).pop() ?? '';
    throw new RenderError(`${this.memberOf(before)} was cut apart by the template; it cannot be quoted`);
  }

  /** A value may not follow a construct the shells disagree about. */
  refuseIfAmbiguous(member: () => string): void {
    if (this.ambiguous) throw new RenderError(`${member()} is used after ${this.ambiguous}; the template is ambiguous to the shell there`, 'placement');
  }

  /** The end of the text: what was lexed, unless values were placed and some quote or substitution is left open. */
  finish(): Lexed {
    this.literals.push(this.literal);
    const frames = this.stack.filter((f) => f.kind !== 'comment');
    const open = frames.length > 1 ? FRAME_NAMES[frames[frames.length - 1]!.kind] : this.openAtEnd;
    if (this.spans > 0 && open !== undefined) {
      throw new RenderError(`cmd_template leaves ${open} open at its end; user values cannot be quoted safely`, 'placement');
    }
    return { out: this.out, literals: this.literals, spans: this.spans, ambiguous: this.ambiguous };
  }
}
