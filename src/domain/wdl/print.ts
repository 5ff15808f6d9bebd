import type { Expr, StringPart } from './ast.js';

/** An expression written back as WDL (an input's default in the inputs template). */
export function exprText(expr: Expr): string {
  switch (expr.kind) {
    case 'literal':
      if (expr.type === 'None') return 'None';
      if (expr.type === 'Float' && Number.isInteger(expr.value)) return `${expr.value as number}.0`;
      return String(expr.value);
    case 'string':
      return `"${partsText(expr.parts)}"`;
    case 'ident':
      return expr.name;
    case 'array':
      return `[${expr.items.map(exprText).join(', ')}]`;
    case 'pair':
      return `(${exprText(expr.left)}, ${exprText(expr.right)})`;
    case 'map':
      return `{${expr.entries.map(([k, v]) => `${exprText(k)}: ${exprText(v)}`).join(', ')}}`;
    case 'object':
      return `${expr.struct ?? 'object'} {${expr.members.map(([k, v]) => `${k}: ${exprText(v)}`).join(', ')}}`;
    case 'unary':
      return `${expr.op}${exprText(expr.operand)}`;
    case 'binary':
      return `${exprText(expr.left)} ${expr.op} ${exprText(expr.right)}`;
    case 'if':
      return `if ${exprText(expr.cond)} then ${exprText(expr.then)} else ${exprText(expr.else)}`;
    case 'index':
      return `${exprText(expr.target)}[${exprText(expr.index)}]`;
    case 'member':
      return `${exprText(expr.target)}.${expr.name}`;
    case 'call':
      return `${expr.name}(${expr.args.map(exprText).join(', ')})`;
  }
}

function partsText(parts: readonly StringPart[]): string {
  return parts.map((part) => (typeof part === 'string' ? part.replace(/["\\]/g, (c) => `\\${c}`).replace(/\n/g, '\\n') : `~{${exprText(part.expr)}}`)).join('');
}
