import type { CwlValue, LinkMergeMethod, PickValueMethod } from '../model.js';
import { describeValue } from '../types/describe.js';
import { WorkflowRunError } from './errors.js';

/**
 * How the values of a sink's data links become one value (CWL v1.2 §WorkflowStepInput, "Merging multiple inbound
 * data links" and "Picking non-null values"), for step inputs and workflow outputs alike:
 *
 * 1. one source and no `linkMerge`: its value as it is (v1.2 says so for a one-item `source` list too; the
 *    reference runner never wrapped a single link for v1.0 or v1.1 documents either, so no version differs);
 * 2. otherwise `linkMerge`, `merge_nested` when not given: a list with one item per link (`merge_nested`), or the
 *    links' lists concatenated, other values appended (`merge_flattened`);
 * 3. then `pickValue`, on the first level of the list (a single link's list is picked from too, as in cwltool).
 */
export interface Sink {
  readonly linkMerge?: LinkMergeMethod;
  readonly pickValue?: PickValueMethod;
}

/**
 * The merged value of `values` (one per link, in the order of `source`; a link without a value is null).
 * `what` names the sink in errors (`input 'x' of step 'a'`, `output 'out'`).
 */
export function mergeLinks(values: readonly CwlValue[], sink: Sink, what: string): CwlValue {
  const merged = values.length === 1 && sink.linkMerge === undefined ? values[0]! : merge(values, sink.linkMerge ?? 'merge_nested');
  return sink.pickValue !== undefined && Array.isArray(merged) ? pick(merged, sink.pickValue, what) : merged;
}

function merge(values: readonly CwlValue[], method: LinkMergeMethod): CwlValue[] {
  if (method === 'merge_nested') return [...values];
  return values.flatMap((value) => (Array.isArray(value) ? (value as CwlValue[]) : [value]));
}

function pick(list: readonly CwlValue[], method: PickValueMethod, what: string): CwlValue {
  const present = list.filter((value) => value !== null);
  if (method === 'all_non_null') return present;
  if (present.length === 0) {
    throw new WorkflowRunError(`${what}: every source is null, and pickValue: ${method} needs a value that is not`);
  }
  if (method === 'the_only_non_null' && present.length > 1) {
    const which = list.flatMap((value, index) => (value === null ? [] : [`${index + 1} (${describeValue(value)})`]));
    throw new WorkflowRunError(`${what}: pickValue: the_only_non_null allows one source that is not null, but sources ${which.join(', ')} are not null`);
  }
  return present[0]!;
}
