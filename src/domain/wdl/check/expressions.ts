import type { Expr } from '../ast.js';
import { WdlError } from '../errors.js';
import { FUNCTIONS } from '../stdlib/index.js';
import { ANY, arrayOf, coercible, prim, typeText, unify, withOptional, type StructTable, type WdlType } from '../types.js';

/** A name's type as the checker sees it: a value's, or a call's outputs. */
export type NameType = WdlType | { readonly kind: 'Call'; readonly outputs: ReadonlyMap<string, WdlType> };

export interface CheckScope {
  lookup(name: string): NameType | undefined;
  readonly structs: StructTable;
}

const NUMERIC = new Set(['Int', 'Float']);
const TEXT = new Set(['String', 'File', 'Directory']);

/** The type of an expression (spec "Expressions"), or WdlError at what cannot be: an unknown name or function, a wrong operand. */
export function typeOf(expr: Expr, scope: CheckScope): WdlType {
  const fail = (what: string): never => {
    throw new WdlError(expr.pos, what);
  };
  switch (expr.kind) {
    case 'literal':
      return prim(expr.type);
    case 'string':
      for (const part of expr.parts) if (typeof part !== 'string') typeOf(part.expr, scope);
      return prim('String');
    case 'ident': {
      const type = scope.lookup(expr.name) ?? fail(`'${expr.name}' is not declared here`);
      return type.kind === 'Call' ? { kind: 'Object', optional: false } : type;
    }
    case 'array':
      return arrayOf(
        unify(
          expr.items.map((item) => typeOf(item, scope)),
          scope.structs,
        ),
        expr.items.length > 0,
      );
    case 'pair':
      return { kind: 'Pair', left: typeOf(expr.left, scope), right: typeOf(expr.right, scope), optional: false };
    case 'map': {
      const keys = unify(
        expr.entries.map(([k]) => typeOf(k, scope)),
        scope.structs,
      );
      const values = unify(
        expr.entries.map(([, v]) => typeOf(v, scope)),
        scope.structs,
      );
      return { kind: 'Map', key: keys, value: values, optional: false };
    }
    case 'object':
      return objectType(expr, scope, fail);
    case 'unary': {
      const operand = typeOf(expr.operand, scope);
      if (expr.op === '!') return check(operand, prim('Boolean'), "'!'", scope, fail);
      if (!NUMERIC.has(operand.kind) && operand.kind !== 'Any') fail(`'${expr.op}' needs a number, not ${typeText(operand)}`);
      return operand;
    }
    case 'binary':
      return binaryType(expr.op, typeOf(expr.left, scope), typeOf(expr.right, scope), scope, fail);
    case 'if': {
      check(typeOf(expr.cond, scope), prim('Boolean'), "the condition of 'if'", scope, fail);
      return unify([typeOf(expr.then, scope), typeOf(expr.else, scope)], scope.structs);
    }
    case 'index':
      return indexType(typeOf(expr.target, scope), typeOf(expr.index, scope), fail);
    case 'member':
      return memberType(expr, scope, fail);
    case 'call':
      return functionType(expr, scope, fail);
  }
}

function check(type: WdlType, expected: WdlType, what: string, scope: CheckScope, fail: (w: string) => never): WdlType {
  if (!coercible(withOptional(type, false), expected, scope.structs)) fail(`${what} needs ${typeText(expected)}, not ${typeText(type)}`);
  return expected;
}

function objectType(expr: Extract<Expr, { kind: 'object' }>, scope: CheckScope, fail: (w: string) => never): WdlType {
  const types = expr.members.map(([name, value]) => [name, typeOf(value, scope)] as const);
  if (expr.struct === undefined) return prim('Object');
  const members = scope.structs.get(expr.struct) ?? fail(`struct '${expr.struct}' is not defined`);
  for (const [name, type] of types) {
    const declared = members.get(name) ?? fail(`struct ${expr.struct} has no member '${name}'`);
    if (!coercible(type, declared, scope.structs)) fail(`member '${name}' of struct ${expr.struct} is ${typeText(declared)}, not ${typeText(type)}`);
  }
  return { kind: 'Struct', name: expr.struct, optional: false };
}

function binaryType(op: string, left: WdlType, right: WdlType, scope: CheckScope, fail: (w: string) => never): WdlType {
  if (left.kind === 'Any' || right.kind === 'Any') return op === '+' || op === '-' || op === '*' || op === '/' || op === '%' ? ANY : prim('Boolean');
  if (op === '&&' || op === '||') {
    check(left, prim('Boolean'), `'${op}'`, scope, fail);
    return check(right, prim('Boolean'), `'${op}'`, scope, fail);
  }
  if (op === '==' || op === '!=') return prim('Boolean');
  if (['<', '<=', '>', '>='].includes(op)) {
    const ok =
      (NUMERIC.has(left.kind) && NUMERIC.has(right.kind)) ||
      (TEXT.has(left.kind) && TEXT.has(right.kind)) ||
      (left.kind === 'Boolean' && right.kind === 'Boolean');
    if (!ok) fail(`'${op}' cannot compare ${typeText(left)} with ${typeText(right)}`);
    return prim('Boolean');
  }
  const optional = left.optional || right.optional;
  if (op === '+' && (TEXT.has(left.kind) || TEXT.has(right.kind))) {
    const other = TEXT.has(left.kind) ? right : left;
    if (!TEXT.has(other.kind) && !NUMERIC.has(other.kind)) fail(`'+' cannot join ${typeText(left)} and ${typeText(right)}`);
    return prim(left.kind === 'File' ? 'File' : 'String', optional);
  }
  if (!NUMERIC.has(left.kind) || !NUMERIC.has(right.kind)) fail(`'${op}' needs numbers, not ${typeText(left)} and ${typeText(right)}`);
  return prim(left.kind === 'Int' && right.kind === 'Int' ? 'Int' : 'Float', optional);
}

function indexType(target: WdlType, index: WdlType, fail: (w: string) => never): WdlType {
  if (target.kind === 'Any') return ANY;
  if (target.kind === 'Array') {
    if (index.kind !== 'Int' && index.kind !== 'Any') fail(`an array is indexed by an Int, not ${typeText(index)}`);
    return target.item;
  }
  if (target.kind === 'Map') return target.value;
  if (target.kind === 'Object') return ANY;
  return fail(`${typeText(target)} cannot be indexed`);
}

function memberType(expr: Extract<Expr, { kind: 'member' }>, scope: CheckScope, fail: (w: string) => never): WdlType {
  if (expr.target.kind === 'ident') {
    const named = scope.lookup(expr.target.name);
    if (named?.kind === 'Call') return named.outputs.get(expr.name) ?? fail(`call '${expr.target.name}' has no output '${expr.name}'`);
  }
  const target = typeOf(expr.target, scope);
  if (target.kind === 'Any' || target.kind === 'Object') return ANY;
  if (target.kind === 'Pair' && (expr.name === 'left' || expr.name === 'right')) return target[expr.name];
  if (target.kind === 'Struct') {
    const members = scope.structs.get(target.name) ?? fail(`struct '${target.name}' is not defined`);
    return members.get(expr.name) ?? fail(`struct ${target.name} has no member '${expr.name}'`);
  }
  return fail(`${typeText(target)} has no member '${expr.name}'`);
}

/** Result types of the standard library where they matter to the checks that follow; Any elsewhere. */
function functionType(expr: Extract<Expr, { kind: 'call' }>, scope: CheckScope, fail: (w: string) => never): WdlType {
  const entry = FUNCTIONS.get(expr.name) ?? fail(`unknown function '${expr.name}'`);
  const [min, max] = entry.arity;
  if (expr.args.length < min || expr.args.length > max)
    fail(`${expr.name}() takes ${min === max ? min : `${min} to ${max}`} arguments, not ${expr.args.length}`);
  const args = expr.args.map((arg) => typeOf(arg, scope));
  const first = args[0];
  const itemOf = (t: WdlType | undefined): WdlType => (t?.kind === 'Array' ? t.item : ANY);
  switch (expr.name) {
    case 'length':
    case 'floor':
    case 'ceil':
    case 'round':
    case 'read_int':
      return prim('Int');
    case 'size':
    case 'read_float':
      return prim('Float');
    case 'defined':
    case 'contains_key':
    case 'contains':
    case 'read_boolean':
      return prim('Boolean');
    case 'sub':
    case 'basename':
    case 'read_string':
    case 'sep':
      return prim('String');
    case 'stdout':
    case 'stderr':
    case 'write_lines':
    case 'write_tsv':
    case 'write_map':
    case 'write_json':
    case 'write_object':
    case 'write_objects':
      return prim('File');
    case 'glob':
      return arrayOf(prim('File'));
    case 'read_lines':
    case 'prefix':
    case 'suffix':
    case 'quote':
    case 'squote':
      return arrayOf(prim('String'));
    case 'range':
      return arrayOf(prim('Int'));
    case 'select_first':
      if (first?.kind === 'Array' && first.item.kind === 'None') fail('select_first() is given no defined value');
      return withOptional(itemOf(first), false);
    case 'select_all':
      return arrayOf(withOptional(itemOf(first), false));
    case 'flatten':
      return arrayOf(itemOf(itemOf(first)));
    case 'min':
    case 'max':
      return args.every((a) => a.kind === 'Int') ? prim('Int') : prim('Float');
    default:
      return ANY;
  }
}
