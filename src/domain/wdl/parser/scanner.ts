import { WdlError, type Pos } from '../errors.js';

export interface Token {
  readonly type: 'ident' | 'int' | 'float' | 'punct' | 'quote' | 'eof';
  readonly text: string;
  readonly pos: Pos;
  /** Offsets of the token in the source. */
  readonly start: number;
  readonly end: number;
}

const PUNCTS = [
  '<<<',
  '>>>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '~{',
  '${',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ',',
  ':',
  '.',
  '=',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
];

/**
 * The characters of a WDL document as tokens, read on demand: strings and commands are read by the parser from the
 * characters (their placeholders hold expressions), so the scanner has no modes of its own. `#` comments and
 * whitespace are skipped between tokens.
 */
export class Scanner {
  offset = 0;
  private peeked: Token | undefined;
  /** The offset each line starts at, for positions. */
  private readonly lineStarts: number[] = [0];

  constructor(
    readonly text: string,
    readonly file: string,
  ) {
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.lineStarts.push(i + 1);
  }

  posAt(offset: number): Pos {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.file, line: lo + 1, column: offset - this.lineStarts[lo]! + 1 };
  }

  error(what: string, offset = this.offset): WdlError {
    return new WdlError(this.posAt(offset), what);
  }

  peek(): Token {
    this.peeked ??= this.scan();
    return this.peeked;
  }

  next(): Token {
    const token = this.peek();
    this.peeked = undefined;
    this.offset = token.end;
    return token;
  }

  /** Forget a peeked token: the parser reads characters from `offset` itself (a string, a command). */
  reset(offset: number): void {
    this.peeked = undefined;
    this.offset = offset;
  }

  is(text: string): boolean {
    const token = this.peek();
    return (token.type === 'punct' || token.type === 'ident') && token.text === text;
  }

  accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.next();
    return true;
  }

  expect(text: string, what = `'${text}'`): Token {
    if (!this.is(text)) throw this.unexpected(what);
    return this.next();
  }

  ident(what = 'a name'): Token {
    const token = this.peek();
    if (token.type !== 'ident') throw this.unexpected(what);
    return this.next();
  }

  unexpected(what: string): WdlError {
    const token = this.peek();
    const found = token.type === 'eof' ? 'the end of the document' : `'${token.text}'`;
    return new WdlError(token.pos, `expected ${what}, found ${found}`);
  }

  /** The rest of the current line from the current offset (the version of `version 1.1`). */
  restOfLine(): string {
    this.peeked = undefined;
    const end = this.text.indexOf('\n', this.offset);
    const stop = end < 0 ? this.text.length : end;
    const line = this.text.slice(this.offset, stop);
    this.offset = stop;
    return line.replace(/#.*$/, '').trim();
  }

  private skip(): void {
    const text = this.text;
    while (this.offset < text.length) {
      const c = text[this.offset]!;
      if (c === '#') {
        const end = text.indexOf('\n', this.offset);
        this.offset = end < 0 ? text.length : end;
      } else if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.offset++;
      else break;
    }
  }

  private scan(): Token {
    this.skip();
    const start = this.offset;
    const text = this.text;
    const make = (type: Token['type'], end: number): Token => ({ type, text: text.slice(start, end), pos: this.posAt(start), start, end });
    if (start >= text.length) return make('eof', start);
    const c = text[start]!;
    if (/[A-Za-z_]/.test(c)) return make('ident', start + /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(start, start + 256))![0].length);
    const number = /^(?:0[xX][0-9a-fA-F]+|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)/.exec(text.slice(start, start + 64));
    if (number && (/\d/.test(c) || (c === '.' && /\d/.test(text[start + 1] ?? '')))) {
      const isFloat = !/^0[xX]/.test(number[0]) && /[.eE]/.test(number[0]);
      return make(isFloat ? 'float' : 'int', start + number[0].length);
    }
    if (c === '"' || c === "'") return make('quote', start + 1);
    for (const punct of PUNCTS) if (text.startsWith(punct, start)) return make('punct', start + punct.length);
    throw this.error(`unexpected character '${c}'`, start);
  }
}
