import type { Decl, Workflow, WorkflowElement } from '../ast.js';
import { WdlError } from '../errors.js';
import { findCycle } from '../../graph-cycle.js';
import { declaredNames, exprNames, freeNames } from '../run/names.js';

/**
 * A workflow whose declarations or calls read each other in a circle is an error (spec, Appendix B "Cyclic
 * References"): `Int i = j + 1` with `Int j = i - 2` can never be evaluated. Checked for the inputs and body of the
 * workflow and again inside each scatter and if, so that a run never starts jobs that would wait for each other.
 */
export function checkCycles(workflow: Workflow): void {
  // An input with a default may read the body (`Int y = d1.out`): it is a node of the top level like the body's elements.
  const inputs = workflow.inputs.filter((decl) => decl.expr !== undefined).map((decl): WorkflowElement => ({ kind: 'decl', ...decl }));
  checkBody([...inputs, ...workflow.body]);
}

function checkBody(body: readonly WorkflowElement[]): void {
  const owner = new Map<string, WorkflowElement>();
  for (const element of body) for (const name of declaredNames(element)) owner.set(name, element);
  const deps = new Map<WorkflowElement, WorkflowElement[]>();
  for (const element of body) {
    const reads = element.kind === 'decl' ? namesOfDecl(element) : freeNames(element);
    deps.set(
      element,
      [...reads].flatMap((name) => (owner.has(name) ? [owner.get(name)!] : [])),
    );
  }
  const cycle = findCycle(deps);
  if (cycle) {
    const names = cycle.map(describe);
    const what = names.length === 1 ? `${names[0]} reads itself` : `${[...names, names[0]].join(' -> ')} read each other in a circle`;
    throw new WdlError(cycle[0]!.pos, `${what}: none of them can be evaluated (a cyclic reference)`);
  }
  for (const element of body) if (element.kind === 'scatter' || element.kind === 'if') checkBody(element.body);
}

const namesOfDecl = (decl: Decl): Set<string> => (decl.expr ? exprNames(decl.expr) : new Set());

function describe(element: WorkflowElement): string {
  if (element.kind === 'decl') return `'${element.name}'`;
  if (element.kind === 'call') return `call '${element.alias}'`;
  return `the ${element.kind} at line ${element.pos.line}`;
}
