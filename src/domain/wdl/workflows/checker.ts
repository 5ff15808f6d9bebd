/**
 * The check of a stored WDL document (docs/wdl.md): the language's parse and type check with its imports, and its
 * input template, womtool's `inputs` (domain/wdl/index.ts). A WDL tool is a document of tasks run one at a time: its
 * template is its task's (the first, when it has several). An error names the file, line and column.
 */
import type { WdlKind } from '../../../store/wdl.js';
import { invalid } from '../../errors.js';
import { inputsTemplate, loadWdl, WdlError } from '../index.js';
import type { WdlDocument } from './service.js';

/** What a check gives: the input template. */
export interface CheckedWdl {
  inputs: Record<string, unknown>;
}

export function checkWdlDocument(document: WdlDocument, kind: WdlKind): CheckedWdl {
  try {
    const bundle = loadWdl({ main: document.main, mainName: document.mainName, ...(document.files ? { files: document.files } : {}) });
    const target = kind === 'tool' || bundle.workflowName === undefined ? bundle.taskNames[0] : undefined;
    if (kind === 'tool' && target === undefined) throw invalid(`source '${document.mainName}' has no task: a WDL tool is a document of tasks`);
    return { inputs: inputsTemplate(bundle, target) };
  } catch (error) {
    if (error instanceof WdlError) throw invalid(`source ${error.message}`);
    throw error;
  }
}
