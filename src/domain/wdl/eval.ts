import type { Expr, PlaceholderOptions, StringPart } from './ast.js';
import { WdlRuntimeError } from './errors.js';
import type { WdlFiles } from './files.js';
import { callFunction } from './stdlib/index.js';
import type { StructTable } from './types.js';
import { bool, coerce, equal, float, int, NONE, str, stringOf, type WdlValue } from './values.js';

/** What an expression is evaluated in: the names it may use, the structs, the file system. */
export interface Scope {
  lookup(name: string): WdlValue | undefined;
  readonly structs: StructTable;
  readonly files: WdlFiles;
}

/** The value of an expression (spec "Expressions"); WdlRuntimeError names where evaluation failed. */
export function evaluate(expr: Expr, scope: Scope): WdlValue {
  try {
    return evaluateAt(expr, scope);
  } catch (error) {
    if (error instanceof WdlRuntimeError) throw error;
    throw new WdlRuntimeError(error instanceof Error ? error.message : String(error), expr.pos);
  }
}

function evaluateAt(expr: Expr, scope: Scope): WdlValue {
  const fail = (message: string): never => {
    throw new WdlRuntimeError(message, expr.pos);
  };
  switch (expr.kind) {
    case 'literal':
      if (expr.type === 'None') return NONE;
      if (expr.type === 'Boolean') return bool(expr.value as boolean);
      return expr.type === 'Int' ? int(expr.value as number) : float(expr.value as number);
    case 'string':
      return str(interpolate(expr.parts, scope));
    case 'ident': {
      const value = scope.lookup(expr.name);
      return value ?? fail(`'${expr.name}' is not defined here`);
    }
    case 'array':
      return { t: 'Array', items: expr.items.map((item) => evaluateAt(item, scope)) };
    case 'pair':
      return { t: 'Pair', left: evaluateAt(expr.left, scope), right: evaluateAt(expr.right, scope) };
    case 'map':
      return { t: 'Map', entries: expr.entries.map(([k, v]) => [evaluateAt(k, scope), evaluateAt(v, scope)] as const) };
    case 'object': {
      const members = Object.fromEntries(expr.members.map(([k, v]) => [k, evaluateAt(v, scope)]));
      if (expr.struct === undefined) return { t: 'Object', members };
      return coerce({ t: 'Object', members }, { kind: 'Struct', name: expr.struct, optional: false }, scope.structs);
    }
    case 'unary': {
      const operand = evaluateAt(expr.operand, scope);
      if (expr.op === '!') return operand.t === 'Boolean' ? bool(!operand.v) : fail(`'!' needs a Boolean, not a ${operand.t}`);
      if (operand.t !== 'Int' && operand.t !== 'Float') return fail(`'${expr.op}' needs a number, not a ${operand.t}`);
      return expr.op === '-' ? { t: operand.t, v: -operand.v } : operand;
    }
    case 'binary':
      return binary(expr.op, expr.left, expr.right, scope, fail);
    case 'if': {
      const cond = evaluateAt(expr.cond, scope);
      if (cond.t !== 'Boolean') return fail(`the condition of 'if' must be a Boolean, not a ${cond.t}`);
      return evaluateAt(cond.v ? expr.then : expr.else, scope);
    }
    case 'index':
      return index(evaluateAt(expr.target, scope), evaluateAt(expr.index, scope), fail);
    case 'member':
      return member(expr, scope, fail);
    case 'call':
      return callFunction(
        expr.name,
        expr.args.map((arg) => evaluateAt(arg, scope)),
        scope,
      );
  }
}

function member(expr: Extract<Expr, { kind: 'member' }>, scope: Scope, fail: (m: string) => never): WdlValue {
  const target = evaluateAt(expr.target, scope);
  if (target.t === 'Pair' && (expr.name === 'left' || expr.name === 'right')) return target[expr.name];
  if (target.t === 'Object' || target.t === 'Struct') {
    const value = target.members[expr.name];
    return value ?? fail(`${target.t === 'Struct' ? `struct ${target.name}` : 'the object'} has no member '${expr.name}'`);
  }
  return fail(`a ${target.t} has no member '${expr.name}'`);
}

function index(target: WdlValue, at: WdlValue, fail: (m: string) => never): WdlValue {
  if (target.t === 'Array') {
    if (at.t !== 'Int') return fail(`an array is indexed by an Int, not a ${at.t}`);
    const item = target.items[at.v];
    return item ?? fail(`index ${at.v} is out of the bounds of an array of ${target.items.length}`);
  }
  if (target.t === 'Map') {
    const entry = target.entries.find(([k]) => equal(k, at));
    return entry ? entry[1] : fail(`the map has no key ${JSON.stringify(stringOrNothing(at))}`);
  }
  if ((target.t === 'Object' || target.t === 'Struct') && at.t === 'String') return target.members[at.v] ?? fail(`no member '${at.v}'`);
  return fail(`a ${target.t} cannot be indexed`);
}

const stringOrNothing = (value: WdlValue): string => ('v' in value ? String(value.v) : value.t);

const NUMERIC = new Set(['Int', 'Float']);
const TEXT = new Set(['String', 'File', 'Directory']);

function binary(op: string, leftExpr: Expr, rightExpr: Expr, scope: Scope, fail: (m: string) => never): WdlValue {
  const left = evaluateAt(leftExpr, scope);
  if (op === '&&' || op === '||') {
    if (left.t !== 'Boolean') return fail(`'${op}' needs Booleans, not a ${left.t}`);
    if (op === '&&' ? !left.v : left.v) return left;
    const right = evaluateAt(rightExpr, scope);
    return right.t === 'Boolean' ? right : fail(`'${op}' needs Booleans, not a ${right.t}`);
  }
  const right = evaluateAt(rightExpr, scope);
  if (op === '==') return bool(equal(left, right));
  if (op === '!=') return bool(!equal(left, right));
  if (op === '+' && (TEXT.has(left.t) || TEXT.has(right.t))) {
    if (left.t === 'None' || right.t === 'None') return NONE;
    const text = stringOf(left) + stringOf(right);
    return left.t === 'File' ? { t: 'File', v: text } : str(text);
  }
  if (['<', '<=', '>', '>='].includes(op)) return bool(compare(op, left, right, fail));
  if (!NUMERIC.has(left.t) || !NUMERIC.has(right.t)) return fail(`'${op}' needs numbers, not a ${left.t} and a ${right.t}`);
  const a = (left as { v: number }).v;
  const b = (right as { v: number }).v;
  const isInt = left.t === 'Int' && right.t === 'Int';
  const make = (v: number): WdlValue => (isInt ? int(v) : float(v));
  switch (op) {
    case '+':
      return make(a + b);
    case '-':
      return make(a - b);
    case '*':
      return make(a * b);
    case '/':
      if (isInt && b === 0) return fail('division by zero');
      return isInt ? int(Math.trunc(a / b)) : float(a / b);
    case '%':
      if (isInt && b === 0) return fail('division by zero');
      return make(a % b);
  }
  return fail(`unknown operator '${op}'`);
}

function compare(op: string, left: WdlValue, right: WdlValue, fail: (m: string) => never): boolean {
  const comparable =
    (NUMERIC.has(left.t) && NUMERIC.has(right.t)) || (TEXT.has(left.t) && TEXT.has(right.t)) || (left.t === 'Boolean' && right.t === 'Boolean');
  if (!comparable || !('v' in left) || !('v' in right)) return fail(`'${op}' cannot compare a ${left.t} with a ${right.t}`);
  const a = left.v;
  const b = right.v;
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}

/** A string's or a command's text, its placeholders written as the spec says (options: sep, true/false, default). */
export function interpolate(parts: readonly StringPart[], scope: Scope, quote?: (text: string) => string): string {
  return parts.map((part) => (typeof part === 'string' ? part : placeholder(part.expr, part.options, scope, quote))).join('');
}

function placeholder(expr: Expr, options: PlaceholderOptions, scope: Scope, quote?: (text: string) => string): string {
  const value = evaluate(expr, scope);
  const q = quote ?? ((text: string) => text);
  if (value.t === 'None') return options.default !== undefined ? q(options.default) : '';
  if (options.true !== undefined || options.false !== undefined) {
    if (value.t !== 'Boolean') throw new WdlRuntimeError(`the true/false options need a Boolean, not a ${value.t}`, expr.pos);
    return q((value.v ? options.true : options.false) ?? '');
  }
  if (value.t === 'Array') {
    if (options.sep === undefined) throw new WdlRuntimeError('an array in a placeholder needs the sep option', expr.pos);
    return value.items.map((item) => q(stringOf(item))).join(options.sep);
  }
  return q(stringOf(value));
}
