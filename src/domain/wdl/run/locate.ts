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

/** The element at `path` of a workflow's body. */
export function elementAt(workflow: Workflow, path: readonly number[]): WorkflowElement {
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
