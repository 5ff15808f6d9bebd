import { isObject, type JsonObject } from '../json.js';
import { commonFormats, type GraphNode, type WorkflowGraph } from './graph.js';

/**
 * The run-parameter template of an executable workflow (INTERFACE.md 2.8): what a user fills in
 * to start a task. `Inputs` are keyed by load-node id, `Outputs` by store-node id, `Parameters`
 * by tool-node id.
 */

export const blockFileProperty = () => ({ block_file: { block_name: null, is_block: false, split_format: 'default' } });

export interface InputEntry {
  category: string;
  alias: string;
  /** `directory` only in the template of a workflow imported from CWL (cwl/imports/run-template.ts). */
  type: 'file' | 'directory';
  required: boolean;
  minitems: number;
  maxitems: number;
  formats: string[];
  data: Array<{ name: string; enid: string | null; property: JsonObject }>;
}

export interface OutputEntry {
  alias: string;
  type: 'file' | 'directory';
  minitems: number;
  maxitems: number;
  formats: string[];
  data: Array<{ name: string; description: string; property: JsonObject }>;
}

export interface ParameterEntry {
  variable: boolean;
  required: boolean;
  type: string;
  value: unknown;
  hint: string;
  minvalue?: number;
  maxvalue?: number;
}

export interface RunTemplate {
  name: string | null;
  description: string;
  Inputs: Record<string, InputEntry>;
  Outputs: Record<string, OutputEntry>;
  Parameters: Record<string, { alias: string; parameters: Record<string, ParameterEntry> }>;
  Property: { water_mark: { style: string | null; required: boolean }; CDN: { required: boolean }; reference_task: Array<{ id: string | null }> };
  Conditions: { schedule: string };
}

/** What a load node accepts: the constraints of every input it feeds, combined. */
function inputEntry(graph: WorkflowGraph, node: GraphNode): InputEntry {
  const link = graph.links.get(node.outputs.data![0]!)!;
  let required = false;
  let minitems = 0;
  let maxitems = Number.MAX_SAFE_INTEGER;
  for (const to of link.to) {
    const consumer = graph.byId.get(to.node)!;
    const spec = consumer.kind === 'tool' ? consumer.tool!.definition.inputs[to.port] : undefined;
    if (!spec) continue;
    required ||= spec.required;
    minitems = Math.max(minitems, spec.minitems);
    maxitems = Math.min(maxitems, spec.maxitems);
  }
  if (maxitems === Number.MAX_SAFE_INTEGER) maxitems = 1000;
  return {
    category: 'loaddata',
    alias: node.alias,
    type: 'file',
    required,
    minitems,
    maxitems,
    formats: commonFormats(graph, link) ?? [],
    data: [{ name: '', enid: link.enid, property: blockFileProperty() }],
  };
}

const blank = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** What a store node writes: the producing output's formats and item counts. */
function outputEntry(graph: WorkflowGraph, node: GraphNode): OutputEntry {
  const link = graph.links.get(node.inputs.data![0]!)!;
  const producer = graph.byId.get(link.from.node)!;
  const spec = producer.kind === 'tool' ? producer.tool!.definition.outputs[link.from.port] : undefined;
  const formats =
    link.formats.length > 0 ? link.formats : producer.kind === 'load' ? (commonFormats(graph, graph.links.get(producer.outputs.data![0]!)!) ?? []) : [];
  const name = node.parameters.name?.value;
  const description = node.parameters.description?.value;
  return {
    alias: node.alias,
    type: 'file',
    minitems: spec?.minitems ?? 1,
    maxitems: spec?.maxitems ?? 1,
    // Clients expect a non-empty list (docs/wire.md §7).
    formats: formats.length > 0 ? formats : ['data'],
    data: [{ name: blank(name) ? '' : String(name), description: blank(description) ? '' : String(description), property: blockFileProperty() }],
  };
}

function parameterEntries(node: GraphNode): Record<string, ParameterEntry> {
  const result: Record<string, ParameterEntry> = {};
  for (const spec of Object.values(node.tool!.definition.parameters)) {
    const set = node.parameters[spec.name];
    result[spec.name] = {
      variable: set?.variable ?? spec.variable,
      required: spec.required,
      type: spec.typeName,
      value: set && 'value' in set ? set.value : spec.default,
      hint: spec.hint,
      ...(spec.minvalue !== undefined ? { minvalue: spec.minvalue } : {}),
      ...(spec.maxvalue !== undefined ? { maxvalue: spec.maxvalue } : {}),
    };
  }
  return result;
}

/** A template with no inputs, outputs or parameters yet, and the default Property and Conditions. */
export const emptyRunTemplate = (description: string): RunTemplate => ({
  name: null,
  description,
  Inputs: {},
  Outputs: {},
  Parameters: {},
  Property: { water_mark: { style: null, required: false }, CDN: { required: false }, reference_task: [{ id: null }] },
  Conditions: { schedule: '' },
});

export function buildRunTemplate(graph: WorkflowGraph, description = ''): RunTemplate {
  const template = emptyRunTemplate(description);
  for (const node of graph.nodes) {
    if (node.kind === 'load') template.Inputs[node.id] = inputEntry(graph, node);
    else if (node.kind === 'store') template.Outputs[node.id] = outputEntry(graph, node);
    else template.Parameters[node.id] = { alias: node.alias, parameters: parameterEntries(node) };
  }
  return template;
}

/**
 * Lay saved run defaults (docs/wire.md §2 "set run template") over the computed template: data items,
 * parameter values, names and conditions the user saved, for nodes that still exist.
 */
export function applySavedTemplate(template: RunTemplate, saved: JsonObject | null): RunTemplate {
  if (!saved) return template;
  const result: RunTemplate = structuredClone(template);
  if (typeof saved.name === 'string' || saved.name === null) result.name = saved.name;
  if (typeof saved.description === 'string') result.description = saved.description;
  const inputs = isObject(saved.Inputs) ? saved.Inputs : {};
  for (const [id, entry] of Object.entries(result.Inputs)) {
    const s = inputs[id];
    if (isObject(s) && Array.isArray(s.data)) entry.data = structuredClone(s.data) as InputEntry['data'];
  }
  const outputs = isObject(saved.Outputs) ? saved.Outputs : {};
  for (const [id, entry] of Object.entries(result.Outputs)) {
    const s = outputs[id];
    if (isObject(s) && Array.isArray(s.data)) entry.data = structuredClone(s.data) as OutputEntry['data'];
  }
  const parameters = isObject(saved.Parameters) ? saved.Parameters : {};
  for (const [id, entry] of Object.entries(result.Parameters)) {
    const s = parameters[id];
    if (!isObject(s) || !isObject(s.parameters)) continue;
    for (const [name, parameter] of Object.entries(entry.parameters)) {
      const sp = s.parameters[name];
      if (isObject(sp) && 'value' in sp) parameter.value = sp.value;
    }
  }
  if (isObject(saved.Property)) result.Property = structuredClone(saved.Property) as RunTemplate['Property'];
  if (isObject(saved.Conditions) && typeof saved.Conditions.schedule === 'string') result.Conditions = { schedule: saved.Conditions.schedule };
  return result;
}
