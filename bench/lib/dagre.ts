import dagreLibrary from '@dagrejs/dagre';

/**
 * The part of @dagrejs/dagre bench:console uses, typed here: the package's declaration files import their siblings
 * without a file extension (`from './lib/graph-lib'`), which TypeScript's NodeNext resolution cannot follow in an ES
 * module package, so its own types reach us unresolved. The shapes are dagre's (dist/types/lib of 2.x).
 */
export interface DagreGraph {
  setGraph(label: { rankdir: string; ranksep: number; nodesep: number; edgesep: number; marginx: number; marginy: number }): DagreGraph;
  setDefaultEdgeLabel(label: () => object): DagreGraph;
  setNode(id: string, label: { width: number; height: number }): DagreGraph;
  setEdge(from: string, to: string, label: object, name: string): DagreGraph;
  /** The graph's label, with the layout's size once laid out. */
  graph(): { width?: number; height?: number };
}

interface Dagre {
  graphlib: { Graph: new (options: { multigraph: boolean }) => DagreGraph };
  layout: (graph: DagreGraph) => void;
}

export const dagre = dagreLibrary as unknown as Dagre;
