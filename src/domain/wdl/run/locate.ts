import type { Workflow, WorkflowElement } from '../ast.js';
import type { LoadedDocument } from '../load.js';

/** Every document of a bundle by its file name. */
export function documentsByFile(main: LoadedDocument): Map<string, LoadedDocument> {
  const out = new Map<string, LoadedDocument>();
  const visit = (doc: LoadedDocument) => {
    if (out.has(doc.doc.file)) return;
    out.set(doc.doc.file, doc);
    for (const child of doc.namespaces.values()) visit(child);
  };
  visit(main);
  return out;
}

/**
 * The element at `path` of a workflow's body; `[-1 - i]` is its input `i`, when its default reads the body and is
 * evaluated as one of the body's declarations (run/workflow.ts, lateInputs).
 */
export function elementAt(workflow: Workflow, path: readonly number[]): WorkflowElement {
  if (path.length === 1 && path[0]! < 0) {
    const input = workflow.inputs[-1 - path[0]!];
    if (!input) throw new Error(`engine error: workflow ${workflow.name} has no input ${-1 - path[0]!}`);
    return { kind: 'decl', ...input };
  }
  let body = workflow.body;
  let element: WorkflowElement | undefined;
  for (const index of path) {
    element = body[index];
    if (!element) throw new Error(`engine error: workflow ${workflow.name} has no element at ${path.join('.')}`);
    body = element.kind === 'scatter' || element.kind === 'if' ? element.body : [];
  }
  if (!element) throw new Error('engine error: an empty element path');
  return element;
}
