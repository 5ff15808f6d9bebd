import type { Expr, WorkflowElement } from '../ast.js';

/** The names an expression reads (its identifiers; `call.out` reads `call`). */
export function exprNames(expr: Expr, into = new Set<string>()): Set<string> {
  switch (expr.kind) {
    case 'ident':
      into.add(expr.name);
      break;
    case 'string':
      for (const part of expr.parts) if (typeof part !== 'string') exprNames(part.expr, into);
      break;
    case 'array':
      expr.items.forEach((item) => exprNames(item, into));
      break;
    case 'pair':
      exprNames(expr.left, into);
      exprNames(expr.right, into);
      break;
    case 'map':
      expr.entries.forEach(([k, v]) => (exprNames(k, into), exprNames(v, into)));
      break;
    case 'object':
      expr.members.forEach(([, v]) => exprNames(v, into));
      break;
    case 'unary':
      exprNames(expr.operand, into);
      break;
    case 'binary':
      exprNames(expr.left, into);
      exprNames(expr.right, into);
      break;
    case 'if':
      [expr.cond, expr.then, expr.else].forEach((e) => exprNames(e, into));
      break;
    case 'index':
      exprNames(expr.target, into);
      exprNames(expr.index, into);
      break;
    case 'member':
      exprNames(expr.target, into);
      break;
    case 'call':
      expr.args.forEach((arg) => exprNames(arg, into));
      break;
    case 'literal':
      break;
  }
  return into;
}

/** The names an element declares, as its enclosing body sees them. */
export function declaredNames(element: WorkflowElement): string[] {
  if (element.kind === 'decl') return [element.name];
  if (element.kind === 'call') return [element.alias];
  return element.body.flatMap(declaredNames);
}

/** The names an element reads from outside itself (a scatter's body reads its variable and its own names inside). */
export function freeNames(element: WorkflowElement): Set<string> {
  if (element.kind === 'decl') return element.expr ? exprNames(element.expr) : new Set();
  if (element.kind === 'call') {
    const names = new Set<string>(element.after);
    for (const [, expr] of element.inputs) exprNames(expr, names);
    return names;
  }
  const names = exprNames(element.expr);
  const inner = new Set(element.body.flatMap(declaredNames));
  if (element.kind === 'scatter') inner.add(element.variable);
  for (const child of element.body) for (const name of freeNames(child)) if (!inner.has(name)) names.add(name);
  return names;
}

/** The key part of an element: a declaration's or call's name, `scatter_<line>_<column>` / `if_<line>_<column>`. */
export function elementName(element: WorkflowElement): string {
  if (element.kind === 'decl') return element.name;
  if (element.kind === 'call') return element.alias;
  return `${element.kind}_${element.pos.line}_${element.pos.column}`;
}
