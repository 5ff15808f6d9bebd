import type { RunParameters } from './types.js';

/** Values for a workflow's run template (INTERFACE.md 2.8), by node id. */
export interface RunValues {
  /** Load nodes: the data each one loads, by name (`/reads/s1_R1.fq` in the caller's account, or `<account>:/...`). */
  inputs?: Record<string, string | string[]>;
  /** Store nodes: the names their data is stored under; a node left out stores under `/home/<user>/<task>/`. */
  outputs?: Record<string, string | string[]>;
  /** Tool nodes: parameter values by parameter name; a parameter left out keeps the template's value. */
  parameters?: Record<string, Record<string, unknown>>;
}

/** The entry of `id` in a section of the template, or an error naming what the template has instead. */
function entryOf<T>(section: Record<string, T> | undefined, id: string, what: string, where = ''): T {
  if (section && Object.hasOwn(section, id)) return section[id]!;
  const known = Object.keys(section ?? {});
  throw new Error(`the run template has no ${what} '${id}'${where} (${known.length > 0 ? `it has ${known.join(', ')}` : 'it has none'})`);
}

/** Data items named `names`, each a copy of the template's first one (its `enid` and `property`). */
function items<T extends { name: string }>(template: T[] | undefined, names: string | string[]): T[] {
  const first = template?.[0] ?? ({} as T);
  return (Array.isArray(names) ? names : [names]).map((name) => ({ ...first, name }));
}

/**
 * A copy of a run template (GetExecutableWorkflow's `parameter`) with the values filled in, ready for
 * ActivateWorkflow's `parameters`; the template itself is left as it was. A node or parameter the template does not
 * have is an error that names it and what the template has, rather than a value silently sent nowhere.
 */
export function fillRunParameters(template: RunParameters, values: RunValues): RunParameters {
  const filled = structuredClone(template);
  for (const [node, names] of Object.entries(values.inputs ?? {})) {
    const entry = entryOf(filled.Inputs, node, 'load node');
    entry.data = items(entry.data, names);
  }
  for (const [node, names] of Object.entries(values.outputs ?? {})) {
    const entry = entryOf(filled.Outputs, node, 'store node');
    entry.data = items(entry.data, names);
  }
  for (const [node, parameters] of Object.entries(values.parameters ?? {})) {
    const entry = entryOf(filled.Parameters, node, 'tool node');
    for (const [name, value] of Object.entries(parameters)) entryOf(entry.parameters, name, 'parameter', ` in node '${node}'`).value = value;
  }
  return filled;
}
