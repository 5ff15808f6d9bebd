import { parse, tokenize, type Program, type Token } from './jinja-library.js';
import { MAX_TEMPLATE_BRANCHES, MAX_TEMPLATE_BRACKETS, MAX_TEMPLATE_LENGTH, MAX_TEMPLATE_NESTING, MAX_TEMPLATE_OPERATORS } from '../../contract/limits.js';
import { limitError, RenderError } from './errors.js';

/**
 * Parsing a `cmd_template` within limits, for PutTool's checks and for every render alike.
 *
 * @huggingface/jinja's parser is recursive descent: each bracket, `not`, sign, call, `elif` and nested block
 * statement costs it stack frames, and its tree nests one level per filter, operator or member access of a chain,
 * which every later walk of the tree (reference checks, the interpreter) follows recursively. A long input (10,000
 * filters in one `{{ }}`, 10,000 nested parentheses) would exhaust the stack. So the template's tokens (the
 * library's own lexer, which loops) are counted first, and a template beyond the documented limits
 * (docs/templates.md) is refused before the parser sees it:
 *
 *  - block statements (`if`, `for`, `macro`, `call`, `filter`, a `set` block) open at once: MAX_TEMPLATE_NESTING;
 *  - `elif` branches of the `if`s open at once (each nests one level in the tree): MAX_TEMPLATE_BRANCHES;
 *  - brackets (`(`, `[`, `{`) open at once in one tag: MAX_TEMPLATE_BRACKETS;
 *  - operators in one `{{ }}` or `{% %}` tag (filters, member accesses, calls, brackets, arithmetic, `~`,
 *    comparisons, `and`/`or`/`not`, `is`, `in`, `if`/`else`): MAX_TEMPLATE_OPERATORS. The tree of one tag is
 *    never deeper than its operators, so this bounds the depth of every chain.
 */

/** The options Template uses (the library's own rendering, which the tests compare against). */
const LEXER_OPTIONS = { lstrip_blocks: true, trim_blocks: true } as const;

const BLOCKS = new Set(['if', 'for', 'macro', 'call', 'filter', 'set']);
const OPENERS = new Set(['OpenParen', 'OpenSquareBracket', 'OpenCurlyBracket']);
const CLOSERS = new Set(['CloseParen', 'CloseSquareBracket', 'CloseCurlyBracket']);
/** Token types that make a node of the tree (an operator, a call, a member access, a literal list or object). */
const OPERATOR_TYPES = new Set([
  ...OPENERS,
  'Pipe',
  'Dot',
  'Colon',
  'Equals',
  'AdditiveBinaryOperator',
  'MultiplicativeBinaryOperator',
  'ExponentiationBinaryOperator',
  'ComparisonBinaryOperator',
  'UnaryOperator',
]);
const OPERATOR_WORDS = new Set(['and', 'or', 'not', 'in', 'is', 'if', 'else']);

/** Whether the `set` at `at` (the token after `{%`) opens a block (`{% set x %}...{% endset %}`), not an assignment. */
function isSetBlock(tokens: Token[], at: number): boolean {
  for (let i = at + 1; i < tokens.length; i++) {
    if (tokens[i]!.type === 'Equals') return false;
    if (tokens[i]!.type === 'CloseStatement') return true;
  }
  return false;
}

/** Refuse a template whose tokens go beyond the limits above; every failure is a RenderError. */
function checkTokens(tokens: Token[]): void {
  /** Open block statements, each with the `elif`s seen so far when it is an `if`. */
  const blocks: { name: string; elifs: number }[] = [];
  let branches = 0;
  let operators = 0;
  let brackets = 0;
  let inTag = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const type: string = token.type;
    if (type === 'OpenExpression' || type === 'OpenStatement') {
      [inTag, operators, brackets] = [true, 0, 0];
      const name = type === 'OpenStatement' && tokens[i + 1]?.type === 'Identifier' ? tokens[i + 1]!.value : undefined;
      if (name === undefined) continue;
      i++; // the statement's name is no operator
      if (BLOCKS.has(name) && (name !== 'set' || isSetBlock(tokens, i))) {
        blocks.push({ name, elifs: 0 });
        if (blocks.length > MAX_TEMPLATE_NESTING) throw limitError(`cmd_template nests block statements more than ${MAX_TEMPLATE_NESTING} deep`);
      } else if (name.startsWith('end') && BLOCKS.has(name.slice(3))) {
        branches -= blocks.pop()?.elifs ?? 0;
      } else if (name === 'elif' && blocks.at(-1)?.name === 'if') {
        blocks.at(-1)!.elifs++;
        if (++branches > MAX_TEMPLATE_BRANCHES) {
          throw limitError(`cmd_template has more than ${MAX_TEMPLATE_BRANCHES} elif branches in the if statements open at one point`);
        }
      }
      continue;
    }
    if (type === 'CloseExpression' || type === 'CloseStatement') {
      inTag = false;
      continue;
    }
    if (!inTag) continue;
    if (OPENERS.has(type) && ++brackets > MAX_TEMPLATE_BRACKETS) {
      throw limitError(`an expression in cmd_template nests brackets more than ${MAX_TEMPLATE_BRACKETS} deep`);
    }
    if (CLOSERS.has(type)) brackets--;
    if (OPERATOR_TYPES.has(type) || (type === 'Identifier' && OPERATOR_WORDS.has(token.value))) {
      if (++operators > MAX_TEMPLATE_OPERATORS) {
        const what = 'filters, member accesses, calls, brackets, operators';
        throw limitError(`one {{ }} or {% %} tag of cmd_template holds more than ${MAX_TEMPLATE_OPERATORS} operators (${what})`);
      }
    }
  }
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Parse a template, refusing with a RenderError one that is too long, goes beyond the limits above, or is not
 * Jinja2. The parsed tree is what `new Template(source).parsed` would be.
 */
export function parseTemplate(source: string): Program {
  if (source.length > MAX_TEMPLATE_LENGTH) throw limitError(`cmd_template is too long: ${source.length} characters, the limit is ${MAX_TEMPLATE_LENGTH}`);
  let tokens: Token[];
  try {
    tokens = tokenize(source, LEXER_OPTIONS);
  } catch (error) {
    throw new RenderError(`cmd_template is not a valid Jinja2 template: ${message(error)}`, 'template');
  }
  checkTokens(tokens);
  try {
    return parse(tokens);
  } catch (error) {
    throw new RenderError(`cmd_template is not a valid Jinja2 template: ${message(error)}`, 'template');
  }
}
