import { prim, type WdlType } from '../types.js';
import type { Scanner } from './scanner.js';

const PRIMITIVES = new Set(['Int', 'Float', 'Boolean', 'String', 'File', 'Directory', 'Object']);

/** A type as written: `Int`, `Array[File]+?`, `Map[String, Pair[Int, Float]]`, a struct's name. */
export function parseType(s: Scanner): WdlType {
  const name = s.ident('a type').text;
  let type: WdlType;
  if (name === 'Array') {
    s.expect('[');
    const item = parseType(s);
    s.expect(']');
    type = { kind: 'Array', item, nonEmpty: s.accept('+'), optional: false };
  } else if (name === 'Map' || name === 'Pair') {
    s.expect('[');
    const first = parseType(s);
    s.expect(',');
    const second = parseType(s);
    s.expect(']');
    type = name === 'Map' ? { kind: 'Map', key: first, value: second, optional: false } : { kind: 'Pair', left: first, right: second, optional: false };
  } else if (PRIMITIVES.has(name)) type = prim(name as 'Int');
  else type = { kind: 'Struct', name, optional: false };
  return s.accept('?') ? { ...type, optional: true } : type;
}

/** Whether the next tokens start a declaration (a type then a name), not an expression or a keyword. */
export function startsDeclaration(s: Scanner): boolean {
  const token = s.peek();
  return (
    token.type === 'ident' &&
    !['call', 'scatter', 'if', 'input', 'output', 'meta', 'parameter_meta', 'command', 'runtime', 'requirements', 'hints'].includes(token.text)
  );
}
