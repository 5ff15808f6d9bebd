import type { CwlInputObject, CwlOutputObject, CwlValue, WorkflowStep } from '../model.js';
import { describeValue } from '../types/describe.js';
import { WorkflowRunError } from './errors.js';

/**
 * Scatter (CWL v1.2 §WorkflowStep, "Scatter/gather"): a step runs once per element of its scattered inputs, after
 * their sources, linkMerge, pickValue and defaults are applied and before valueFrom and `when`.
 *
 * - one scattered input, or `dotproduct`: instance i takes element i of every scattered list; the lists must have
 *   the same length;
 * - `nested_crossproduct`: every combination, in the order of `scatter`; each output is a list of lists (one
 *   level per scattered input);
 * - `flat_crossproduct`: the same combinations, each output one flat list;
 * - an empty scattered list gives no instance and empty lists as outputs, keeping the levels before it (`[[], []]`
 *   for nested lists of 2 and 0 elements);
 * - an input named twice in `scatter` is scattered twice (its elements must be lists), as in the reference runner.
 */

/**
 * Where each instance's outputs go in the gathered lists: a list whose items are instance numbers (flat) or
 * lists of them (nested_crossproduct). Plain JSON, for the engine to keep until the instances have ended.
 */
export type ScatterLayout = readonly (number | ScatterLayout)[];

export interface ScatterShape {
  /** The step's `out` names: every one is gathered, also when there is no instance. */
  readonly outputs: readonly string[];
  readonly layout: ScatterLayout;
}

export interface ScatterExpansion {
  /** Each instance's input object (before loadContents and valueFrom); instance i is number i of the layout. */
  readonly instances: readonly CwlInputObject[];
  readonly shape: ScatterShape;
}

export function expandScatter(step: WorkflowStep, inputs: CwlInputObject): ScatterExpansion {
  const names = step.scatter.map((id) => {
    const input = step.in.find((i) => i.id === id);
    if (input === undefined) throw new Error(`step '${step.name}' scatters over ${id}, which is not one of its inputs`);
    return input.name;
  });
  const instances: CwlInputObject[] = [];
  const method = step.scatterMethod ?? 'dotproduct';
  const layout = method === 'dotproduct' ? dotproduct(step, inputs, names, instances) : crossproduct(step, inputs, names, instances);
  return { instances, shape: { outputs: step.out.map((o) => o.name), layout: method === 'flat_crossproduct' ? flatten(layout) : layout } };
}

const flatten = (layout: ScatterLayout): number[] => layout.flatMap((item) => (typeof item === 'number' ? [item] : flatten(item)));

/** The gathered outputs: each output a list (of lists) of the instances' values, null for a skipped instance. */
export function gatherScatter(shape: ScatterShape, instanceOutputs: readonly (CwlOutputObject | null | undefined)[]): CwlOutputObject {
  const place = (layout: ScatterLayout, name: string): CwlValue[] =>
    layout.map((item) => (typeof item === 'number' ? (instanceOutputs[item]?.[name] ?? null) : place(item, name)));
  return Object.fromEntries(shape.outputs.map((name) => [name, place(shape.layout, name)]));
}

function dotproduct(step: WorkflowStep, inputs: CwlInputObject, names: readonly string[], instances: CwlInputObject[]): number[] {
  const lists = names.map((name) => listOf(step, inputs, name));
  const lengths = new Set(lists.map((l) => l.length));
  if (lengths.size > 1) {
    const sizes = names.map((name, i) => `'${name}' has ${lists[i]!.length}`).join(', ');
    throw new WorkflowRunError(`step '${step.name}': a dotproduct scatter needs lists of one length, but ${sizes} items`);
  }
  return (lists[0] ?? []).map((_, index) => {
    const instance: Record<string, CwlValue> = { ...inputs };
    names.forEach((name, i) => (instance[name] = lists[i]![index]!));
    return instances.push(instance) - 1;
  });
}

function crossproduct(step: WorkflowStep, inputs: CwlInputObject, names: readonly string[], instances: CwlInputObject[]): ScatterLayout {
  const [name, ...rest] = names;
  return listOf(step, inputs, name!).map((item) => {
    const instance = { ...inputs, [name!]: item };
    return rest.length === 0 ? instances.push(instance) - 1 : crossproduct(step, instance, rest, instances);
  });
}

function listOf(step: WorkflowStep, inputs: CwlInputObject, name: string): readonly CwlValue[] {
  const value = inputs[name] ?? null;
  if (Array.isArray(value)) return value as readonly CwlValue[];
  throw new WorkflowRunError(`step '${step.name}' scatters over '${name}', which must be a list, not ${describeValue(value)}`);
}
