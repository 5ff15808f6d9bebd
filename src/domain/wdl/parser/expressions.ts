import type { Expr, PlaceholderOptions, StringPart } from '../ast.js';
import type { Scanner } from './scanner.js';

/**
 * WDL expressions (spec "Expressions", "Operator Precedence Table"), by precedence from the lowest: `if then else`,
 * `||`, `&&`, `== !=`, `< <= > >=`, `+ -`, `* / %`, unary `! -`, then indexing, member access and function calls.
 */
export class ExpressionParser {
  constructor(protected readonly s: Scanner) {}

  expression(): Expr {
    if (this.s.is('if')) {
      const pos = this.s.next().pos;
      const cond = this.expression();
      this.s.expect('then');
      const then = this.expression();
      this.s.expect('else');
      return { kind: 'if', pos, cond, then, else: this.expression() };
    }
    return this.binary(0);
  }

  private static readonly LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];

  private binary(level: number): Expr {
    if (level >= ExpressionParser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const token = this.s.peek();
      if (token.type !== 'punct' || !ExpressionParser.LEVELS[level]!.includes(token.text)) return left;
      this.s.next();
      const right = this.binary(level + 1);
      left = { kind: 'binary', pos: token.pos, op: token.text, left, right };
    }
  }

  private unary(): Expr {
    const token = this.s.peek();
    if (token.type === 'punct' && (token.text === '!' || token.text === '-' || token.text === '+')) {
      this.s.next();
      return { kind: 'unary', pos: token.pos, op: token.text, operand: this.unary() };
    }
    return this.postfix(this.primary());
  }

  private postfix(expr: Expr): Expr {
    for (;;) {
      if (this.s.is('[')) {
        const pos = this.s.next().pos;
        const index = this.expression();
        this.s.expect(']');
        expr = { kind: 'index', pos, target: expr, index };
      } else if (this.s.is('.')) {
        const pos = this.s.next().pos;
        expr = { kind: 'member', pos, target: expr, name: this.s.ident('a member name').text };
      } else return expr;
    }
  }

  private primary(): Expr {
    const token = this.s.peek();
    const pos = token.pos;
    switch (token.type) {
      case 'int':
        this.s.next();
        return {
          kind: 'literal',
          pos,
          type: 'Int',
          value: Number(token.text.startsWith('0') && /^0[0-7]+$/.test(token.text) ? parseInt(token.text, 8) : token.text),
        };
      case 'float':
        this.s.next();
        return { kind: 'literal', pos, type: 'Float', value: Number(token.text) };
      case 'quote':
        return this.string();
      case 'ident':
        return this.named();
      case 'punct':
        return this.bracketed();
      default:
        throw this.s.unexpected('an expression');
    }
  }

  private named(): Expr {
    const token = this.s.next();
    const pos = token.pos;
    switch (token.text) {
      case 'true':
      case 'false':
        return { kind: 'literal', pos, type: 'Boolean', value: token.text === 'true' };
      case 'None':
        return { kind: 'literal', pos, type: 'None', value: null };
      case 'object':
        if (this.s.is('{')) return { kind: 'object', pos, members: this.members() };
    }
    if (this.s.is('(')) {
      this.s.next();
      const args: Expr[] = [];
      while (!this.s.is(')')) {
        args.push(this.expression());
        if (!this.s.accept(',')) break;
      }
      this.s.expect(')', "',' or ')'");
      return { kind: 'call', pos, name: token.text, args };
    }
    // A struct literal (1.1): `Name { member: value }`; a name starting with a capital never names a value here.
    if (this.s.is('{') && /^[A-Z]/.test(token.text)) return { kind: 'object', pos, struct: token.text, members: this.members() };
    return { kind: 'ident', pos, name: token.text };
  }

  private members(): [string, Expr][] {
    this.s.expect('{');
    const members: [string, Expr][] = [];
    while (!this.s.is('}')) {
      const key = this.s.peek().type === 'quote' ? this.plainString() : this.s.ident('a member name').text;
      this.s.expect(':');
      members.push([key, this.expression()]);
      if (!this.s.accept(',')) break;
    }
    this.s.expect('}', "',' or '}'");
    return members;
  }

  private bracketed(): Expr {
    const token = this.s.next();
    const pos = token.pos;
    if (token.text === '(') {
      const first = this.expression();
      if (this.s.accept(',')) {
        const right = this.expression();
        this.s.expect(')');
        return { kind: 'pair', pos, left: first, right };
      }
      this.s.expect(')');
      return first;
    }
    if (token.text === '[') {
      const items: Expr[] = [];
      while (!this.s.is(']')) {
        items.push(this.expression());
        if (!this.s.accept(',')) break;
      }
      this.s.expect(']', "',' or ']'");
      return { kind: 'array', pos, items };
    }
    if (token.text === '{') {
      const entries: [Expr, Expr][] = [];
      while (!this.s.is('}')) {
        const key = this.expression();
        this.s.expect(':');
        entries.push([key, this.expression()]);
        if (!this.s.accept(',')) break;
      }
      this.s.expect('}', "',' or '}'");
      return { kind: 'map', pos, entries };
    }
    this.s.reset(token.start);
    throw this.s.unexpected('an expression');
  }

  /** A string literal without placeholders (an import's URI, a placeholder option, a meta value). */
  plainString(): string {
    const string = this.string();
    const parts = string.kind === 'string' ? string.parts : [];
    const text = parts.filter((part): part is string => typeof part === 'string');
    if (string.kind !== 'string' || text.length !== parts.length) throw this.s.error('expected a string without placeholders', this.s.offset);
    return text.join('');
  }

  /** A quoted string, its placeholders `~{}` and `${}` parsed (spec "Strings", escape sequences). */
  string(): Expr {
    const open = this.s.next();
    if (open.type !== 'quote') throw this.s.unexpected('a string');
    const quote = open.text;
    const text = this.s.text;
    const parts: StringPart[] = [];
    let literal = '';
    let i = open.end;
    for (;;) {
      if (i >= text.length || text[i] === '\n') throw this.s.error('this string is not closed', open.start);
      const c = text[i]!;
      if (c === quote) break;
      if ((c === '~' || c === '$') && text[i + 1] === '{') {
        if (literal) parts.push(literal);
        literal = '';
        this.s.reset(i + 2);
        parts.push(this.placeholder());
        i = this.s.offset;
        continue;
      }
      if (c === '\\') {
        const [value, length] = escape(text, i);
        literal += value;
        i += length;
        continue;
      }
      literal += c;
      i++;
    }
    if (literal) parts.push(literal);
    this.s.reset(i + 1);
    return { kind: 'string', pos: open.pos, parts };
  }

  /** After `~{` or `${`: options, the expression and `}`. */
  placeholder(): StringPart {
    const options: { -readonly [K in keyof PlaceholderOptions]: string } = {};
    for (;;) {
      const token = this.s.peek();
      if (token.type !== 'ident' || !['sep', 'true', 'false', 'default'].includes(token.text)) break;
      const save = token.start;
      this.s.next();
      if (!this.s.is('=')) {
        this.s.reset(save);
        break;
      }
      this.s.next();
      const value = this.s.peek();
      const optionValue = value.type === 'quote' ? this.plainString() : this.s.next().text;
      options[token.text as keyof PlaceholderOptions] = optionValue;
    }
    const expr = this.expression();
    this.s.expect('}', "'}' closing the placeholder");
    return { expr, options };
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '~': '~', $: '$', b: '\b', f: '\f', v: '\v', a: '\x07' };

/** An escape sequence at `i` (a backslash): its value and its length. Unknown escapes are kept as written. */
function escape(text: string, i: number): [string, number] {
  const c = text[i + 1] ?? '';
  if (c in ESCAPES) return [ESCAPES[c]!, 2];
  const octal = /^[0-7]{3}/.exec(text.slice(i + 1, i + 4));
  if (octal) return [String.fromCharCode(parseInt(octal[0], 8)), 4];
  const hex = /^x[0-9a-fA-F]{2}/.exec(text.slice(i + 1, i + 4));
  if (hex) return [String.fromCharCode(parseInt(hex[0].slice(1), 16)), 4];
  const unicode = /^u[0-9a-fA-F]{4}|^U[0-9a-fA-F]{8}/.exec(text.slice(i + 1, i + 10));
  if (unicode) return [String.fromCodePoint(parseInt(unicode[0].slice(1), 16)), 1 + unicode[0].length];
  return ['\\' + c, 2];
}
