import { Environment, Interpreter, type RuntimeValue } from './jinja-library.js';
import { limitError, RenderError } from './errors.js';
import { parseTemplate } from './parse.js';
import { FORBIDDEN, isSingleSpan, stripSentinels, wrap } from './sentinel.js';

/**
 * Rendering a `cmd_template` with `@huggingface/jinja` (an interpreter: templates cannot reach
 * the host runtime, docs/wire.md §5).
 *
 * User strings are in the context wrapped in sentinels (sentinel.ts). Left alone, the wrapping
 * would change what templates *observe*: `parameters.mode == 'fast'` would be false,
 * `parameters.name | length` two too long, `parameters.x[0:3]` would cut a sentinel off. So the
 * interpreter instance gets a few hooks (on the instance only, never on the library's prototype):
 *
 *  - comparisons (`==`, `!=`, `in`, `not in`) see the values without sentinels;
 *  - a filter, attribute, method or slice applied to a value that is exactly one wrapped user
 *    string is applied to the bare string, and every string in the result is wrapped again
 *    (`x | upper`, `x.split('/')`, `x[0:3]`, `x | replace('a', 'b')` stay user data; `x | length`
 *    is a plain number).
 *
 * These hooks only serve the template's logic. Safety does not depend on them: whatever reaches
 * the output is either still inside sentinels (and quoted by shell.ts), or a broken sentinel
 * (refused), or caught by the last check in shell.ts. If a library upgrade renamed the hooked
 * methods, the hooks are skipped (comparisons would then see wrapped values) and the unit tests
 * on comparisons fail.
 */

/** The little we need of the library's runtime values (they are not exported as types). */
type RuntimeCtor = new (value: unknown) => RuntimeValue;
interface Node {
  type: string;
  [key: string]: unknown;
}
type Evaluate = (node: Node | undefined, env: Environment) => RuntimeValue;
type EvaluateNode = (node: Node, env: Environment) => RuntimeValue;
type ApplyFilter = (operand: RuntimeValue, filter: unknown, env: Environment) => RuntimeValue;

/** A node type the hooks use to hand an already evaluated value to the library's own methods. */
const CONSTANT = '__gdflowConstant';

const COMPARISONS = new Set(['==', '!=', 'in', 'not in']);

const make = (like: RuntimeValue, value: unknown): RuntimeValue => new (like.constructor as RuntimeCtor)(value);

/** The value as the template's logic should see it: every string without sentinels. */
function bare(value: RuntimeValue): RuntimeValue {
  switch (value.type) {
    case 'StringValue': {
      const text = value.value as string;
      const stripped = stripSentinels(text);
      return stripped === text ? value : make(value, stripped);
    }
    case 'ArrayValue':
    case 'TupleValue':
      return make(value, (value.value as RuntimeValue[]).map(bare));
    default:
      return value;
  }
}

/** Mark a value derived from a user string as user data again. */
function taint(value: RuntimeValue): RuntimeValue {
  switch (value.type) {
    case 'StringValue':
      return make(value, wrap(stripSentinels(value.value as string)));
    case 'ArrayValue':
    case 'TupleValue':
      return make(value, (value.value as RuntimeValue[]).map(taint));
    case 'ObjectValue':
    case 'KeywordArgumentsValue': {
      const entries = [...(value.value as Map<string, RuntimeValue>).entries()].map(([k, v]) => [k, taint(v)] as const);
      return make(value, new Map(entries));
    }
    case 'FunctionValue': {
      const fn = value.value as (args: RuntimeValue[], scope: Environment) => RuntimeValue;
      return make(value, (args: RuntimeValue[], scope: Environment) => taint(fn(args.map(bare), scope)));
    }
    default:
      return value;
  }
}

const isUserString = (value: RuntimeValue): boolean => value.type === 'StringValue' && isSingleSpan(value.value as string);

const constant = (value: RuntimeValue): Node => ({ type: CONSTANT, value });

interface Originals {
  evaluate: Evaluate;
  binary: EvaluateNode;
  member: EvaluateNode;
  filter: ApplyFilter;
}

function originals(): Originals | undefined {
  const proto = Interpreter.prototype as unknown as Record<string, unknown>;
  const names = ['evaluate', 'evaluateBinaryExpression', 'evaluateMemberExpression', 'applyFilter'];
  if (!names.every((name) => typeof proto[name] === 'function')) return undefined;
  return {
    evaluate: proto.evaluate as Evaluate,
    binary: proto.evaluateBinaryExpression as EvaluateNode,
    member: proto.evaluateMemberExpression as EvaluateNode,
    filter: proto.applyFilter as ApplyFilter,
  };
}

const ORIGINALS = originals();

/** Whether the comparison/filter hooks are active (false only if the library changed shape). */
export const HOOKS_ACTIVE = ORIGINALS !== undefined;

/**
 * Evaluation steps one render may take: a template runs in the server process, so a loop such
 * as `{% for i in range(100000) %}{% for j in range(100000) %}` must not hold it for hours.
 */
export const MAX_STEPS = 300_000;
/**
 * Evaluations nested in one another. The parse limits (parse.ts) keep a template's own tree shallow, but a macro
 * calling a macro calling a macro nests their bodies at run time, each level costing the interpreter stack frames.
 */
export const MAX_RENDER_DEPTH = 500;
/** Items one range() may make. */
export const MAX_RANGE = 100_000;
/** Characters a rendered command may have. */
export const MAX_OUTPUT = 1024 * 1024;

function hook(interpreter: Interpreter): void {
  const o = ORIGINALS;
  if (!o) return;
  const self = interpreter as unknown as { evaluate: Evaluate };
  let steps = 0;
  let depth = 0;
  const evaluateHooked = function (this: unknown, node: Node | undefined, env: Environment): RuntimeValue {
    if (node) {
      switch (node.type) {
        case CONSTANT:
          return node.value as RuntimeValue;
        case 'BinaryExpression': {
          const operator = (node.operator as { value: string }).value;
          if (!COMPARISONS.has(operator)) break;
          const left = bare(self.evaluate(node.left as Node, env));
          const right = bare(self.evaluate(node.right as Node, env));
          return o.binary.call(this, { ...node, left: constant(left), right: constant(right) }, env);
        }
        case 'MemberExpression': {
          const object = self.evaluate(node.object as Node, env);
          if (isUserString(object)) return taint(o.member.call(this, { ...node, object: constant(bare(object)) }, env));
          return o.member.call(this, { ...node, object: constant(object) }, env);
        }
        case 'FilterExpression': {
          const operand = self.evaluate(node.operand as Node, env);
          if (isUserString(operand)) return taint(o.filter.call(this, bare(operand), node.filter, env));
          return o.filter.call(this, operand, node.filter, env);
        }
      }
    }
    return o.evaluate.call(this, node, env);
  };
  self.evaluate = function (this: unknown, node: Node | undefined, env: Environment): RuntimeValue {
    if (++steps > MAX_STEPS) throw limitError(`cmd_template takes more than ${MAX_STEPS} steps to render`);
    if (++depth > MAX_RENDER_DEPTH) throw limitError(`cmd_template nests evaluations more than ${MAX_RENDER_DEPTH} deep when rendered (macros calling macros)`);
    try {
      return evaluateHooked.call(this, node, env);
    } finally {
      depth--;
    }
  };
}

/** Python's range(stop) / range(start, stop[, step]). */
function range(...args: unknown[]): number[] {
  if (args.length < 1 || args.length > 3 || !args.every((a) => typeof a === 'number' && Number.isInteger(a))) {
    throw new Error('range() takes 1 to 3 integer arguments');
  }
  const [a, b, c] = args as number[];
  const [start, stop, step] = args.length === 1 ? [0, a!, 1] : [a!, b!, c ?? 1];
  if (step === 0) throw new Error('range() step must not be zero');
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push(i);
    if (out.length > MAX_RANGE) throw limitError(`range() is too long: more than ${MAX_RANGE} items`);
  }
  return out;
}

/** Any string anywhere in the parsed template (literals and raw text) holding a forbidden character. */
function findForbiddenLiteral(node: unknown, seen = new Set<unknown>()): boolean {
  if (typeof node === 'string') return FORBIDDEN.test(node);
  if (typeof node !== 'object' || node === null || seen.has(node)) return false;
  seen.add(node);
  if (node instanceof Map) {
    for (const [k, v] of node) if (findForbiddenLiteral(k, seen) || findForbiddenLiteral(v, seen)) return true;
    return false;
  }
  return Object.values(node).some((child) => findForbiddenLiteral(child, seen));
}

const message = (error: unknown): string => stripSentinels(error instanceof Error ? error.message : String(error));

/**
 * Parsed templates by source: a task renders the same tool's template once per node, and parsing
 * costs more than rendering. The interpreter never changes a parsed tree (the hooks above build new
 * nodes), so one tree serves every render. Only templates that parsed and passed the checks are kept.
 */
type Program = ReturnType<typeof parseTemplate>;
const parsedTemplates = new Map<string, Program>();
const MAX_PARSED = 500;

function parse(source: string): Program {
  const known = parsedTemplates.get(source);
  if (known) return known;
  if (FORBIDDEN.test(source)) throw new RenderError('cmd_template must not contain NUL or private-use characters', 'template');
  const program = parseTemplate(source);
  // `\uE000` written as an escape in a string literal would forge a marker.
  if (findForbiddenLiteral(program)) {
    throw new RenderError('cmd_template must not contain NUL or private-use characters (also not as \\u escapes)', 'template');
  }
  if (parsedTemplates.size >= MAX_PARSED) parsedTemplates.clear();
  parsedTemplates.set(source, program);
  return program;
}

/** A stack overflow: a value nested too deep for the interpreter's recursive walks (lists of lists built in a loop), or a render started on a deep stack. */
const isStackOverflow = (error: unknown): boolean => error instanceof RangeError && /call stack/i.test(error.message);

/** Parse (or reuse) and render a template; every failure is a RenderError. The output still holds sentinels. */
export function renderTemplate(source: string, context: Record<string, unknown>): string {
  const program = parse(source);
  const env = new Environment();
  const globals: Record<string, unknown> = {
    true: true,
    false: false,
    none: null,
    True: true,
    False: false,
    None: null,
    range,
    raise_exception: (text: unknown) => {
      throw new Error(`raise_exception: ${String(text)}`);
    },
    ...context,
  };
  try {
    for (const [name, value] of Object.entries(globals)) env.set(name, value);
    const interpreter = new Interpreter(env);
    hook(interpreter);
    const result = interpreter.run(program);
    if (typeof result.value !== 'string') throw new Error(`template produced ${result.type}, not text`);
    if (result.value.length > MAX_OUTPUT) throw limitError(`cmd_template renders to more than ${MAX_OUTPUT} characters`);
    return result.value;
  } catch (error) {
    if (error instanceof RenderError) throw error;
    if (isStackOverflow(error)) throw limitError('cmd_template nests values or calls too deep to render');
    throw new RenderError(`cmd_template failed to render: ${message(error)}`);
  }
}
