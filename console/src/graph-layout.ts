/**
 * The layout of a workflow graph (the graph view of GET workflows/<name>/graph/): ranks from left to right
 * (layered.ts), node sizes from their labels' measured widths, each link labelled with its formats.
 */
import { layered } from './layered.js';
import { t } from './i18n.js';
import type { GraphEdge, GraphView } from './types.js';

export interface PlacedNode {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge {
  edge: GraphEdge;
  points: Array<{ x: number; y: number }>;
}

/** A link's label where it is drawn: once per link, and once for all the links one output fans out to. */
export interface PlacedLabel {
  text: string;
  x: number;
  y: number;
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: Map<string, PlacedNode>;
  edges: PlacedEdge[];
  labels: PlacedLabel[];
}

export const NODE_HEIGHT = 46;
const FONT = '13px system-ui, sans-serif';
const SMALL_FONT = '11px system-ui, sans-serif';

let context: CanvasRenderingContext2D | null | undefined;

/** The width of a text in a font, measured by a canvas (an estimate where there is none). */
export function textWidth(text: string, font = FONT): number {
  if (context === undefined) context = document.createElement('canvas').getContext('2d');
  if (!context) return text.length * 7.5;
  if (context.font !== font) context.font = font;
  return context.measureText(text).width;
}

/** What a node shows: its alias (or id) on top, the tool or step below. */
export function nodeLines(node: GraphView['nodes'][number]): [string, string] {
  const title = node.alias?.trim() || node.node_id;
  const sub =
    node.kind === 'tool'
      ? `${node.tool?.name ?? node.name}${node.tool ? ` v${node.tool.version}` : ''}`
      : node.kind === 'load'
        ? t('load data')
        : t('store data');
  return [title, sub];
}

/** A link's label: its formats, or the input it feeds when it carries no format (a load step's). */
export const edgeLabel = (edge: GraphEdge): string => (edge.formats.length > 0 ? edge.formats.join(', ') : edge.to_port);

export function layoutGraph(view: GraphView): GraphLayout {
  const sized = view.nodes.map((node) => {
    const [title, sub] = nodeLines(node);
    return {
      id: node.node_id,
      width: Math.min(260, Math.max(110, Math.ceil(Math.max(textWidth(title), textWidth(sub, SMALL_FONT))) + 28)),
      height: NODE_HEIGHT,
    };
  });
  const placed = layered(sized, view.edges, { rankGap: 80, nodeGap: 16, linkGap: 6, margin: 14 });
  const nodes = new Map<string, PlacedNode>();
  for (const [id, n] of placed.nodes) nodes.set(id, { id, x: n.x, y: n.y, width: n.width, height: n.height });
  const edges = view.edges.map((edge, i) => ({ edge, points: placed.points[i] ?? [] }));
  // One label per output that fans out (just after its node, where its links start together), else one per link,
  // half way along its first stretch.
  const fans = new Map<string, PlacedEdge[]>();
  for (const e of edges) {
    const key = `${e.edge.from}\u0000${e.edge.from_port}\u0000${edgeLabel(e.edge)}`;
    fans.set(key, [...(fans.get(key) ?? []), e]);
  }
  const labels: PlacedLabel[] = [];
  for (const group of fans.values()) {
    const first = group[0]!;
    const text = edgeLabel(first.edge);
    const [a, b] = first.points;
    if (!a || !b) continue;
    if (group.length === 1) labels.push({ text, x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 5 });
    else labels.push({ text, x: a.x + 6 + Math.min(70, textWidth(text, SMALL_FONT)) / 2, y: a.y - 8 });
  }
  return { width: placed.width, height: placed.height, nodes, edges, labels };
}

/** An SVG path through the points, left to right: each stretch a curve leaving and arriving horizontally. */
export function pathOf(points: Array<{ x: number; y: number }>): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${first.x.toFixed(1)},${first.y.toFixed(1)}`;
  let p = first;
  for (const q of rest) {
    const half = (q.x - p.x) / 2;
    d += `C${(p.x + half).toFixed(1)},${p.y.toFixed(1)} ${(q.x - half).toFixed(1)},${q.y.toFixed(1)} ${q.x.toFixed(1)},${q.y.toFixed(1)}`;
    p = q;
  }
  return d;
}
