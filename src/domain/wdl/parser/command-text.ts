import type { StringPart } from '../ast.js';
import { parseCommand } from './command.js';
import { ExpressionParser } from './expressions.js';
import { Scanner } from './scanner.js';

/**
 * A command given as text outside a document (a restart's replacement command, docs/wdl.md): read as the body of a
 * `command <<< >>>` section, so `~{}` placeholders are WDL's and `$x`, `${x}` stay the shell's; dedented the same way.
 * `file` names it in errors.
 */
export function parseCommandText(text: string, file: string): StringPart[] {
  const s = new Scanner(`<<<${text}>>>`, file);
  const parts = parseCommand(s, new ExpressionParser(s));
  if (s.offset !== s.text.length) throw s.error("the command holds '>>>', which would end it", s.offset - 3);
  return parts;
}
