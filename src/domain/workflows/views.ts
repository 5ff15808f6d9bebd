import type { Workflow } from '../../store/store.js';
import { roundTime } from '../time.js';
import type { WorkflowGraph } from './graph.js';

export const workflowsUrl = (baseUrl: string, w: Pick<Workflow, 'accountName' | 'projectName'>, collection = 'workflows'): string =>
  `${baseUrl}/accounts/${encodeURIComponent(w.accountName)}/projects/${encodeURIComponent(w.projectName)}/${collection}/`;

/** 2.5, with the created and modified times clients list (docs/wire.md §7). */
export function workflowSummary(w: Workflow, baseUrl: string, methods?: string[], collection = 'workflows') {
  return {
    workflow_url: `${workflowsUrl(baseUrl, w, collection)}${encodeURIComponent(w.name)}/?workflow_version=${w.version}`,
    workflow_name: w.name,
    workflow_version: w.version,
    workflow_id: w.id,
    description: w.description,
    status: w.status,
    type: w.visibility,
    ...(methods ? { authorized_methods: methods } : {}),
    modified_time: roundTime(w.modifiedAt),
    created_time: roundTime(w.createdAt),
  };
}

/** 2.6: one version as read; configs exactly as stored. */
export function workflowAsRead(w: Workflow) {
  return {
    version: w.version,
    description: w.description,
    status: w.status,
    configs: w.configs ?? { nodelist: [] },
    workflow_id: w.id,
    modified_time: roundTime(w.modifiedAt),
    created_time: roundTime(w.createdAt),
  };
}

/** The validated graph as nodes and edges, for `gdflow workflow graph` and the web console. */
export function graphView(w: Workflow, graph: WorkflowGraph) {
  const depth = new Map<string, number>();
  for (const node of graph.nodes) {
    let d = 0;
    for (const enids of Object.values(node.inputs)) {
      for (const enid of enids) d = Math.max(d, depth.get(graph.links.get(enid)!.from.node)! + 1);
    }
    depth.set(node.id, d);
  }
  return {
    workflow_name: w.name,
    workflow_version: w.version,
    workflow_id: w.id,
    nodes: graph.nodes.map((node) => ({
      node_id: node.id,
      kind: node.kind,
      name: node.kind === 'tool' ? node.tool!.name : node.name || (node.kind === 'load' ? 'loaddata' : 'storedata'),
      alias: node.alias,
      app_id: node.appId,
      ...(node.tool
        ? { tool: { account: node.tool.accountName, project: node.tool.projectName, name: node.tool.name, version: node.tool.version, tool_id: node.tool.id } }
        : {}),
      inputs: Object.keys(node.inputs),
      outputs: Object.keys(node.outputs),
      depth: depth.get(node.id)!,
    })),
    edges: [...graph.links.values()].flatMap((link) =>
      link.to.map((to) => ({ enid: link.enid, from: link.from.node, from_port: link.from.port, to: to.node, to_port: to.port, formats: link.formats })),
    ),
  };
}
