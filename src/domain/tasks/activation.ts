import { DataPathError, formatDataName, parseDataName, type DataRef } from '../../data/index.js';
import { PUBLIC_ACCOUNT, type Caller } from '../access.js';
import { invalid } from '../errors.js';
import { describe, isObject, type JsonObject } from '../json.js';
import { coerceParameter } from '../tools/parameter-values.js';
import type { WorkflowGraph } from '../workflows/graph.js';
import type { RunTemplate } from '../workflows/run-template.js';
import { parseSchedule } from './schedule.js';

/**
 * Check a task's run parameters against the workflow's executable template before anything
 * runs (INTERFACE.md 2.8, 4.15). Every failure is an InvalidInput naming the node and member.
 */

export interface DataCatalog {
  /** Size and modification time of a stored item (seconds, and ms as the file system has it), or undefined when there is none. */
  stat(ref: DataRef): Promise<{ size: number; modifiedAt: number; mtimeMs: number } | undefined>;
}

export interface ResolvedRun {
  description: string;
  scheduleAt: number | null;
  /** Load node → the stored files it delivers, in order. */
  inputs: Record<string, DataRef[]>;
  /** Store node → where each item of its input goes. */
  outputs: Record<string, Array<{ ref: DataRef; description: string }>>;
  /** Tool node → parameter values after defaults, of their declared types. */
  parameters: Record<string, Record<string, unknown>>;
  referenceTask: string | null;
  /** Property.call_caching: false turns the call cache off for this task; null leaves it to the server. */
  callCaching: boolean | null;
  /** Property.cleanup_intermediates: delete intermediate outputs once the task succeeded; null: the server's default. */
  cleanupIntermediates: boolean | null;
}

/** Whether a file name has one of the formats (its name ends with `.<format>`); no formats accept all. */
export function matchesFormat(name: string, formats: string[]): boolean {
  if (formats.length === 0) return true;
  const lower = name.toLowerCase();
  return formats.some((f) => lower.endsWith(`.${f.toLowerCase()}`));
}

function section(parameters: JsonObject, key: 'Inputs' | 'Outputs' | 'Parameters', template: RunTemplate): JsonObject {
  const value = parameters[key];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalid(`parameters.${key} must be an object keyed by node id, not ${describe(value)}`);
  for (const nodeId of Object.keys(value)) {
    if (!(nodeId in template[key])) {
      const kind = key === 'Inputs' ? 'loaddata' : key === 'Outputs' ? 'storedata' : 'tool';
      throw invalid(`parameters.${key}.${nodeId} is not a ${kind} node of the workflow (it has ${Object.keys(template[key]).join(', ') || 'none'})`);
    }
  }
  return value;
}

function dataList(entry: unknown, fallback: unknown[], path: string): unknown[] {
  if (entry === undefined) return fallback;
  if (!isObject(entry)) throw invalid(`${path} must be an object, not ${describe(entry)}`);
  if (entry.data === undefined) return fallback;
  if (!Array.isArray(entry.data)) throw invalid(`${path}.data must be a list, not ${describe(entry.data)}`);
  return entry.data;
}

/** The name of a store node's `index`th item (of `count`) when the task gives none: `<node>.<format>`, `<node>_2.<format>`. */
export const defaultOutputName = (nodeId: string, index: number, count: number, format: string): string =>
  `${nodeId}${count > 1 ? `_${index + 1}` : ''}.${format}`;

export interface ResolveRunInput {
  graph: WorkflowGraph;
  template: RunTemplate;
  parameters: unknown;
  caller: Caller;
  taskName: string;
  catalog: DataCatalog;
}

export async function resolveRun({ graph, template, parameters: raw, caller, taskName, catalog }: ResolveRunInput): Promise<ResolvedRun> {
  if (raw !== undefined && raw !== null && !isObject(raw)) throw invalid(`parameters must be an object (the run-parameter template), not ${describe(raw)}`);
  const parameters: JsonObject = raw ?? {};
  const run: ResolvedRun = {
    description: typeof parameters.description === 'string' ? parameters.description : template.description,
    scheduleAt: parseSchedule(isObject(parameters.Conditions) ? parameters.Conditions.schedule : template.Conditions.schedule),
    inputs: {},
    outputs: {},
    parameters: {},
    referenceTask: null,
    callCaching: null,
    cleanupIntermediates: null,
  };

  // Inputs: every item exists, is readable by the caller, has an accepted format; counts in range.
  const inputs = section(parameters, 'Inputs', template);
  for (const [nodeId, entry] of Object.entries(template.Inputs)) {
    const path = `parameters.Inputs.${nodeId}`;
    const items = dataList(inputs[nodeId], entry.data, path).filter(
      (item) => !(isObject(item) && (item.name === '' || item.name === null || item.name === undefined)),
    );
    if (items.length === 0 && entry.required) throw invalid(`${path}.data is empty, but the input is required`);
    if (items.length < entry.minitems) throw invalid(`${path}.data has ${items.length} items; at least ${entry.minitems} are needed`);
    if (items.length > entry.maxitems) throw invalid(`${path}.data has ${items.length} items; at most ${entry.maxitems} are allowed`);
    const refs: DataRef[] = [];
    for (const [i, item] of items.entries()) {
      const where = `${path}.data[${i}]`;
      if (!isObject(item) || typeof item.name !== 'string')
        throw invalid(`${where}.name must be a data name such as '/reads/a.fastq' or 'public:/demo/a.fastq'`);
      let ref: DataRef;
      try {
        ref = parseDataName(item.name, caller.accountName);
      } catch (error) {
        throw invalid(`${where}.name: ${error instanceof DataPathError ? error.message : String(error)}`);
      }
      if (ref.account !== caller.accountName && ref.account !== PUBLIC_ACCOUNT) {
        throw invalid(`${where}.name '${item.name}' belongs to account '${ref.account}'; a task may read only its own account's data and public data`);
      }
      if (!matchesFormat(ref.path, entry.formats)) throw invalid(`${where}.name '${item.name}' has none of the accepted formats ${entry.formats.join(', ')}`);
      if (!(await catalog.stat(ref))) throw invalid(`${where}.name '${formatDataName(ref)}' does not exist in the data store`);
      refs.push(ref);
    }
    run.inputs[nodeId] = refs;
  }

  // Parameters: only declared names, of their declared types and ranges; fixed ones stay fixed.
  const given = section(parameters, 'Parameters', template);
  for (const node of graph.nodes) {
    if (node.kind !== 'tool') continue;
    const entry = given[node.id];
    const values =
      entry === undefined ? {} : isObject(entry) && (entry.parameters === undefined || isObject(entry.parameters)) ? (entry.parameters ?? {}) : undefined;
    if (values === undefined) throw invalid(`parameters.Parameters.${node.id} must be an object {alias, parameters}`);
    const definitions = node.tool!.definition.parameters;
    for (const name of Object.keys(values)) {
      if (!definitions[name]) throw invalid(`parameters.Parameters.${node.id}.parameters.${name} is not a parameter of tool ${node.tool!.name}`);
    }
    const resolved: Record<string, unknown> = {};
    for (const spec of Object.values(definitions)) {
      const path = `parameters.Parameters.${node.id}.parameters.${spec.name}`;
      const fromTemplate = template.Parameters[node.id]!.parameters[spec.name]!;
      const supplied = values[spec.name];
      const suppliedValue = isObject(supplied) ? supplied.value : supplied;
      if (supplied !== undefined && !isObject(supplied)) throw invalid(`${path} must be an object {value}, not ${describe(supplied)}`);
      if (!fromTemplate.variable && supplied !== undefined && 'value' in supplied && JSON.stringify(suppliedValue) !== JSON.stringify(fromTemplate.value)) {
        throw invalid(`${path} is fixed by the workflow (variable: false) to ${JSON.stringify(fromTemplate.value)}`);
      }
      const value = supplied !== undefined && 'value' in supplied ? suppliedValue : fromTemplate.value;
      resolved[spec.name] = coerceParameter(spec, value, `${path}.value`);
    }
    run.parameters[node.id] = resolved;
  }

  // Outputs: names in the caller's own account; blank names get a default under /home/<user>/<task>/.
  const outputs = section(parameters, 'Outputs', template);
  const taken = new Map<string, string>();
  for (const [nodeId, entry] of Object.entries(template.Outputs)) {
    const path = `parameters.Outputs.${nodeId}`;
    const items = dataList(outputs[nodeId], entry.data, path);
    const count = Math.max(items.length, 1);
    if (count > entry.maxitems) throw invalid(`${path}.data has ${items.length} items; the output has at most ${entry.maxitems}`);
    const resolved: Array<{ ref: DataRef; description: string }> = [];
    for (let i = 0; i < count; i++) {
      const item = items[i] ?? {};
      const where = `${path}.data[${i}]`;
      if (!isObject(item)) throw invalid(`${where} must be an object {name, description}`);
      const format = entry.formats[0] ?? 'data';
      const blank = item.name === undefined || item.name === null || (typeof item.name === 'string' && item.name.trim() === '');
      if (!blank && typeof item.name !== 'string') throw invalid(`${where}.name must be a string`);
      const name = blank ? `/home/${caller.userName}/${taskName}/${defaultOutputName(nodeId, i, count, format)}` : (item.name as string);
      let ref: DataRef;
      try {
        ref = parseDataName(name, caller.accountName);
      } catch (error) {
        throw invalid(`${where}.name: ${error instanceof DataPathError ? error.message : String(error)}`);
      }
      if (ref.account !== caller.accountName)
        throw invalid(`${where}.name '${name}' is in account '${ref.account}'; a task writes only to its own account's data`);
      const full = formatDataName(ref);
      const other = taken.get(full);
      if (other) throw invalid(`${where}.name '${full}' is also the output of ${other}`);
      taken.set(full, `${nodeId}[${i}]`);
      resolved.push({ ref, description: typeof item.description === 'string' ? item.description : '' });
    }
    run.outputs[nodeId] = resolved;
  }

  if (parameters.Property !== undefined && parameters.Property !== null && !isObject(parameters.Property)) {
    throw invalid(`parameters.Property must be an object, not ${describe(parameters.Property)}`);
  }
  const property = isObject(parameters.Property) ? parameters.Property : {};
  for (const key of ['call_caching', 'cleanup_intermediates'] as const) {
    const value = property[key];
    if (value !== undefined && value !== null && typeof value !== 'boolean')
      throw invalid(`parameters.Property.${key} must be true or false, not ${describe(value)}`);
  }
  run.callCaching = typeof property.call_caching === 'boolean' ? property.call_caching : null;
  run.cleanupIntermediates = typeof property.cleanup_intermediates === 'boolean' ? property.cleanup_intermediates : null;
  const reference: unknown = Array.isArray(property.reference_task) ? property.reference_task[0] : undefined;
  const referenceId = isObject(reference) ? reference.id : undefined;
  // Clients send `null` or the string "null" for none (docs/wire.md §7).
  run.referenceTask = typeof referenceId === 'string' && referenceId !== 'null' && referenceId !== '' ? referenceId : null;
  return run;
}
