import type { Workflow as StoredWorkflow } from '../../../store/store.js';
import { isObject } from '../../json.js';

/**
 * The graph view (`gdflow workflow graph`, the console) of a workflow imported from CWL, made from its configuration
 * (views.ts workflowView) as the view of a GeneDock workflow is made from its validated graph: the same nodes,
 * edges and depths. Steps whose processes are not tool versions have no `tool`.
 */

export interface GraphViewNode {
  node_id: string;
  kind: 'load' | 'tool' | 'store';
  name: string;
  alias: string;
  app_id: string;
  inputs: string[];
  outputs: string[];
  depth: number;
}

const enidsOf = (ports: unknown): Array<[string, string]> =>
  isObject(ports)
    ? Object.entries(ports).flatMap(([port, links]) =>
        [links].flat().flatMap((link) => (isObject(link) && typeof link.enid === 'string' ? [[port, link.enid] as [string, string]] : [])),
      )
    : [];

export function cwlGraphView(workflow: StoredWorkflow) {
  const nodelist = isObject(workflow.configs) && Array.isArray(workflow.configs.nodelist) ? workflow.configs.nodelist.filter(isObject) : [];
  const producers = new Map<string, { node: string; port: string }>();
  for (const node of nodelist) for (const [port, enid] of enidsOf(node.outputs)) producers.set(enid, { node: String(node.node_id), port });
  const depth = new Map<string, number>();
  const depthOf = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const node = nodelist.find((n) => n.node_id === id);
    let d = 0;
    for (const [, enid] of enidsOf(node?.inputs)) {
      const from = producers.get(enid);
      if (from && !seen.has(from.node)) d = Math.max(d, depthOf(from.node, new Set([...seen, from.node])) + 1);
    }
    depth.set(id, d);
    return d;
  };
  const nodes: GraphViewNode[] = nodelist.map((node) => {
    const appId = String(node.app_id);
    const kind = appId === 'loaddata' ? 'load' : appId === 'storedata' ? 'store' : 'tool';
    const id = String(node.node_id);
    return {
      node_id: id,
      kind,
      name: typeof node.name === 'string' ? node.name : id,
      alias: typeof node.alias === 'string' ? node.alias : id,
      app_id: appId,
      inputs: Object.keys(isObject(node.inputs) ? node.inputs : {}),
      outputs: Object.keys(isObject(node.outputs) ? node.outputs : {}),
      depth: depthOf(id, new Set([id])),
    };
  });
  const edges = nodelist.flatMap((node) =>
    enidsOf(node.inputs).flatMap(([port, enid]) => {
      const from = producers.get(enid);
      return from ? [{ enid, from: from.node, from_port: from.port, to: String(node.node_id), to_port: port, formats: null }] : [];
    }),
  );
  return { workflow_name: workflow.name, workflow_version: workflow.version, workflow_id: workflow.id, nodes, edges };
}
