/**
 * The check of a stored WDL document: the language's parse and type check with its imports, and its input template
 * (domain/wdl/index.ts). PROVISIONAL until the language lands: only the version line is checked.
 */
import type { WdlKind } from '../../../store/wdl.js';
import { invalid } from '../../errors.js';
import type { WdlDocument } from './service.js';

export function checkWdlDocument(document: WdlDocument, _kind: WdlKind): { inputs: Record<string, unknown> } {
  const line = document.main.split('\n').findIndex((l) => /^\s*version\s+/.test(l));
  if (line < 0) throw invalid(`${document.mainName}:1:1: the document has no 'version 1.0' or 'version 1.1' line`);
  return { inputs: {} };
}
