import { invalid } from '../errors.js';
import { describe, expectObject, isObject, optionalBoolean, optionalString, type JsonObject } from '../json.js';
import { parameterValueProblem, type ToolDefinition } from '../tools/definition.js';
import { stepAppIdProblem, stepKind, type StepKind } from './system-steps.js';

/**
 * A workflow configuration (INTERFACE.md 2.7) parsed and validated into a graph: nodes joined by
 * links (`enid`s), checked for every rule that makes it safe to run. Pure: tools are resolved
 * beforehand and passed in.
 */

export const MAX_NODES = 5000;
const NODE_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

/** A tool version a node uses, resolved from its `app_id`. */
export interface ResolvedTool {
  id: string;
  accountName: string;
  projectName: string;
  name: string;
  version: number;
  definition: ToolDefinition;
  /** A version imported from CWL (its definition is a view): no GeneDock workflow may run it as a node. */
  importedFromCwl?: boolean;
}

export interface NodeParameter {
  variable: boolean;
  /** Absent when the workflow leaves the tool's default. */
  value?: unknown;
}

export interface GraphNode {
  id: string;
  kind: StepKind;
  name: string;
  alias: string;
  appId: string;
  tool?: ResolvedTool;
  /** Port name → link ids, in the order given. */
  inputs: Record<string, string[]>;
  outputs: Record<string, string[]>;
  parameters: Record<string, NodeParameter>;
}

export interface PortRef {
  node: string;
  port: string;
}

export interface Link {
  enid: string;
  from: PortRef;
  to: PortRef[];
  /** Formats the producer writes (empty: unknown / anything). */
  formats: string[];
}

export interface WorkflowGraph {
  /** In a topological order: every node after all nodes it depends on. */
  nodes: GraphNode[];
  byId: Map<string, GraphNode>;
  links: Map<string, Link>;
}

/** app_id → the tool it names (undefined: no such tool the caller may use). */
export type ToolLookup = (appId: string) => ResolvedTool | undefined;

/** The `app_id`s of the tool nodes of a configuration, to resolve before building the graph. */
export function toolAppIds(configs: unknown): string[] {
  if (!isObject(configs) || !Array.isArray(configs.nodelist)) return [];
  const ids = new Set<string>();
  for (const node of configs.nodelist) {
    if (isObject(node) && typeof node.app_id === 'string' && stepKind(node) === 'tool') ids.add(node.app_id);
  }
  return [...ids];
}

/** `{name: [{enid}], ...}` or, for data steps, `{data: {enid}}` → port → link ids. */
function readPorts(raw: unknown, path: string): Record<string, string[]> {
  if (raw === undefined || raw === null) return {};
  const ports = expectObject(raw, path);
  const result: Record<string, string[]> = {};
  for (const [port, value] of Object.entries(ports)) {
    const items = Array.isArray(value) ? value : value === null ? [] : [value];
    result[port] = items.map((item, i) => {
      const where = Array.isArray(value) ? `${path}.${port}[${i}]` : `${path}.${port}`;
      if (!isObject(item)) throw invalid(`${where} must be an object {enid}, not ${describe(item)}`);
      const enid = item.enid;
      if (typeof enid !== 'string' || enid.trim() === '') throw invalid(`${where}.enid must be a non-empty string naming a data link`);
      if (enid.length > 256) throw invalid(`${where}.enid is longer than 256 characters`);
      return enid;
    });
  }
  return result;
}

function readParameters(raw: unknown, path: string): Record<string, NodeParameter> {
  if (raw === undefined || raw === null) return {};
  const parameters = expectObject(raw, path);
  const result: Record<string, NodeParameter> = {};
  for (const [name, value] of Object.entries(parameters)) {
    const where = `${path}.${name}`;
    if (!isObject(value)) throw invalid(`${where} must be an object {variable, value}, not ${describe(value)}`);
    const variable = optionalBoolean(value.variable, `${where}.variable`) ?? true;
    result[name] = 'value' in value ? { variable, value: value.value } : { variable };
  }
  return result;
}

function readNode(raw: unknown, index: number, lookup: ToolLookup): GraphNode {
  const path = `nodelist[${index}]`;
  const node = expectObject(raw, path);
  const id = node.node_id;
  if (typeof id !== 'string' || !NODE_ID.test(id)) {
    throw invalid(`${path}.node_id must be 1 to 128 letters, digits, '_' or '-', not ${describe(id)}`);
  }
  const where = `node '${id}'`;
  const appId = node.app_id;
  if (typeof appId !== 'string' || appId === '') throw invalid(`${where}: app_id must be a non-empty string`);
  const kind = stepKind(node);
  const name = optionalString(node.name, `${where}: name`) ?? '';
  const alias = optionalString(node.alias, `${where}: alias`) ?? '';
  const inputs = readPorts(node.inputs, `${where}: inputs`);
  const outputs = readPorts(node.outputs, `${where}: outputs`);
  const parameters = readParameters(node.parameters, `${where}: parameters`);
  const result: GraphNode = { id, kind, name, alias, appId, inputs, outputs, parameters };
  const stepProblem = stepAppIdProblem(node);
  if (stepProblem) throw invalid(`${where} ${stepProblem}`);

  if (kind === 'load') {
    if (Object.keys(inputs).length > 0) throw invalid(`${where} is a loaddata step and takes no inputs`);
    const ports = Object.keys(outputs);
    if (ports.length !== 1 || ports[0] !== 'data' || outputs.data!.length !== 1)
      throw invalid(`${where} is a loaddata step: its outputs must be exactly data: {enid}`);
    return result;
  }
  if (kind === 'store') {
    if (Object.keys(outputs).length > 0) throw invalid(`${where} is a storedata step and has no outputs`);
    const ports = Object.keys(inputs);
    if (ports.length !== 1 || ports[0] !== 'data' || inputs.data!.length !== 1)
      throw invalid(`${where} is a storedata step: its inputs must be exactly data: {enid}`);
    for (const parameter of Object.keys(parameters)) {
      if (parameter !== 'name' && parameter !== 'description')
        throw invalid(`${where} is a storedata step; its parameters are name and description, not '${parameter}'`);
    }
    return result;
  }

  const tool = lookup(appId);
  if (!tool)
    throw invalid(
      `${where}: app_id '${appId.slice(0, 200)}' does not name a checked tool version you may use (give the tool's _id or /<account>/<tool>/<version>)`,
    );
  result.tool = tool;
  const def = tool.definition;
  for (const port of Object.keys(inputs)) {
    if (!def.inputs[port])
      throw invalid(`${where}: input '${port}' is not an input of tool ${tool.name}:${tool.version} (it has ${Object.keys(def.inputs).join(', ') || 'none'})`);
  }
  for (const port of Object.keys(outputs)) {
    if (!def.outputs[port])
      throw invalid(
        `${where}: output '${port}' is not an output of tool ${tool.name}:${tool.version} (it has ${Object.keys(def.outputs).join(', ') || 'none'})`,
      );
  }
  for (const [port, spec] of Object.entries(def.inputs)) {
    if (spec.required && (inputs[port]?.length ?? 0) === 0) throw invalid(`${where}: required input '${port}' of tool ${tool.name} is not connected`);
    if ((inputs[port]?.length ?? 0) > spec.maxitems)
      throw invalid(`${where}: input '${port}' has ${inputs[port]!.length} links but takes at most ${spec.maxitems} items`);
  }
  for (const [parameter, value] of Object.entries(parameters)) {
    const spec = def.parameters[parameter];
    if (!spec)
      throw invalid(
        `${where}: parameter '${parameter}' is not a parameter of tool ${tool.name}:${tool.version} (it has ${Object.keys(def.parameters).join(', ') || 'none'})`,
      );
    if (value.value !== undefined && value.value !== null && value.value !== '') {
      const problem = parameterValueProblem(spec, value.value);
      if (problem) throw invalid(`${where}: parameter '${parameter}' ${problem}`);
    }
  }
  return result;
}

/** Formats a link carries: the producing tool output's, or, for a load step, what its consumers accept. */
function producerFormats(node: GraphNode, port: string): string[] {
  if (node.kind === 'tool') return node.tool!.definition.outputs[port]?.formats ?? [];
  return [];
}

function consumerFormats(node: GraphNode, port: string): string[] {
  if (node.kind === 'tool') return node.tool!.definition.inputs[port]?.formats ?? [];
  return [];
}

const intersects = (a: string[], b: string[]): boolean => {
  const lower = new Set(a.map((f) => f.toLowerCase()));
  return b.some((f) => lower.has(f.toLowerCase()));
};

/** Accepted formats common to every consumer of a link (consumers that accept anything are ignored). */
export function commonFormats(graph: WorkflowGraph, link: Link): string[] | undefined {
  let common: string[] | undefined;
  for (const to of link.to) {
    const formats = consumerFormats(graph.byId.get(to.node)!, to.port);
    if (formats.length === 0) continue;
    common = common === undefined ? formats : common.filter((f) => formats.some((g) => g.toLowerCase() === f.toLowerCase()));
  }
  return common;
}

export function buildGraph(configs: unknown, lookup: ToolLookup): WorkflowGraph {
  if (configs === undefined || configs === null) throw invalid('configs is required');
  const config: JsonObject = expectObject(configs, 'configs');
  if (!Array.isArray(config.nodelist)) throw invalid(`configs.nodelist must be a list of nodes, not ${describe(config.nodelist)}`);
  if (config.nodelist.length === 0) throw invalid('configs.nodelist is empty');
  if (config.nodelist.length > MAX_NODES) throw invalid(`configs.nodelist has ${config.nodelist.length} nodes; the quota is ${MAX_NODES}`);

  const byId = new Map<string, GraphNode>();
  config.nodelist.forEach((raw, index) => {
    const node = readNode(raw, index, lookup);
    if (byId.has(node.id)) throw invalid(`node_id '${node.id}' is used by more than one node`);
    byId.set(node.id, node);
  });

  // Links: each produced by exactly one output, consumed by at least one input.
  const links = new Map<string, Link>();
  for (const node of byId.values()) {
    for (const [port, enids] of Object.entries(node.outputs)) {
      for (const enid of enids) {
        const existing = links.get(enid);
        if (existing) throw invalid(`link '${enid}' is produced by both ${existing.from.node}.${existing.from.port} and ${node.id}.${port}`);
        links.set(enid, { enid, from: { node: node.id, port }, to: [], formats: producerFormats(node, port) });
      }
    }
  }
  for (const node of byId.values()) {
    for (const [port, enids] of Object.entries(node.inputs)) {
      for (const enid of enids) {
        const link = links.get(enid);
        if (!link) throw invalid(`node '${node.id}': input '${port}' uses link '${enid}', which no output produces`);
        if (link.from.node === node.id) throw invalid(`node '${node.id}' consumes its own output through link '${enid}'`);
        link.to.push({ node: node.id, port });
      }
    }
  }
  const graph: WorkflowGraph = { nodes: [], byId, links };
  for (const link of links.values()) {
    if (link.to.length === 0) throw invalid(`link '${link.enid}' from ${link.from.node}.${link.from.port} is not consumed by any input`);
    const producer = byId.get(link.from.node)!;
    if (producer.kind === 'load') {
      const common = commonFormats(graph, link);
      if (common !== undefined && common.length === 0) {
        throw invalid(`loaddata node '${producer.id}' feeds ${link.to.map((t) => `${t.node}.${t.port}`).join(' and ')}, which accept no format in common`);
      }
      continue;
    }
    for (const to of link.to) {
      const accepted = consumerFormats(byId.get(to.node)!, to.port);
      if (link.formats.length > 0 && accepted.length > 0 && !intersects(link.formats, accepted)) {
        throw invalid(
          `link '${link.enid}': ${link.from.node}.${link.from.port} writes ${link.formats.join(',')} but ${to.node}.${to.port} accepts only ${accepted.join(',')}`,
        );
      }
    }
  }

  graph.nodes = topologicalOrder(byId, links);
  return graph;
}

/** Kahn's algorithm; on a cycle, the error names one. */
function topologicalOrder(byId: Map<string, GraphNode>, links: Map<string, Link>): GraphNode[] {
  const successors = new Map<string, Set<string>>();
  const indegree = new Map<string, number>();
  for (const id of byId.keys()) {
    successors.set(id, new Set());
    indegree.set(id, 0);
  }
  for (const link of links.values()) {
    for (const to of link.to) {
      const next = successors.get(link.from.node)!;
      if (!next.has(to.node)) {
        next.add(to.node);
        indegree.set(to.node, indegree.get(to.node)! + 1);
      }
    }
  }
  const ready = [...byId.keys()].filter((id) => indegree.get(id) === 0);
  const order: GraphNode[] = [];
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i]!;
    order.push(byId.get(id)!);
    for (const next of successors.get(id)!) {
      const remaining = indegree.get(next)! - 1;
      indegree.set(next, remaining);
      if (remaining === 0) ready.push(next);
    }
  }
  if (order.length < byId.size) throw invalid(`the workflow has a cycle: ${describeCycle(byId, successors, indegree)}`);
  return order;
}

function describeCycle(byId: Map<string, GraphNode>, successors: Map<string, Set<string>>, indegree: Map<string, number>): string {
  // Walk forward inside the nodes left over until a node repeats.
  const left = new Set([...byId.keys()].filter((id) => indegree.get(id)! > 0));
  let current = [...left][0]!;
  const seen = new Map<string, number>();
  const path: string[] = [];
  while (!seen.has(current)) {
    seen.set(current, path.length);
    path.push(current);
    current = [...successors.get(current)!].find((n) => left.has(n))!;
  }
  return [...path.slice(seen.get(current)), current].join(' -> ');
}
