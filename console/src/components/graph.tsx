/**
 * A workflow graph in SVG: nodes laid out as a DAG (graph-layout.ts), load and store steps drawn apart from tools,
 * links labelled with their formats. At 100% a node's text is at its normal size; the graph opens whole where it can
 * be read whole, the view scrolls, and zooms with the buttons (or Ctrl and the wheel). Nodes are buttons: a click,
 * Enter or Space selects one. With `states`, each node is coloured by its job's state (the task page).
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { t, useLang } from '../i18n.js';
import { layoutGraph, nodeLines, NODE_HEIGHT, pathOf, type GraphLayout } from '../graph-layout.js';
import type { GraphView, JobStatus } from '../types.js';

export interface GraphProps {
  view: GraphView;
  selected?: string | undefined;
  onSelect?: (nodeId: string) => void;
  /** Job state by node id. */
  states?: Record<string, JobStatus | undefined>;
  /** Called once the graph is laid out and drawn (milliseconds the layout took). */
  onRendered?: (layoutMs: number) => void;
}

const ZOOMS = [0.25, 0.35, 0.5, 0.7, 0.85, 1, 1.25, 1.5, 2];
/** The smallest zoom a graph opens at: a node's name is then drawn at 9 px, a link's label at 7.7 px, still legible. */
const READABLE = 0.7;
/** The graph box's largest height, a share of the window's (styles.css: .graph-box max-height). */
const BOX_HEIGHT = 0.7;

export function Graph({ view, selected, onSelect, states, onRendered }: GraphProps) {
  const lang = useLang();
  const timed = useMemo(() => {
    const started = performance.now();
    const layout = layoutGraph(view);
    return { layout, ms: performance.now() - started };
  }, [view, lang]);
  const layout: GraphLayout = timed.layout;
  const box = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState<number | undefined>(undefined);

  // Open at the largest zoom, up to 100%, at which the whole graph fits its box (its width, and at most 70% of the
  // window's height), but never below READABLE: labels first. A graph too big for that opens at READABLE, as close
  // to whole as it can be read, and its box scrolls; Fit shows it whole at any zoom.
  useLayoutEffect(() => {
    const width = (box.current?.clientWidth ?? 800) - 4;
    const height = window.innerHeight * BOX_HEIGHT - 4;
    setZoom(Math.min(1, Math.max(READABLE, Math.min(width / layout.width, height / layout.height))));
  }, [layout]);

  useEffect(() => {
    if (zoom !== undefined) onRendered?.(timed.ms);
  }, [zoom === undefined, timed]);

  const scale = zoom ?? 1;
  const step = (direction: 1 | -1) => {
    const index = ZOOMS.findIndex((z) => z >= scale - 1e-9);
    const next = direction > 0 ? ZOOMS.find((z) => z > scale + 1e-9) : [...ZOOMS].reverse().find((z) => z < scale - 1e-9);
    setZoom(next ?? ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, index))]!);
  };
  const fit = () => {
    const el = box.current;
    if (!el) return;
    setZoom(Math.max(0.1, Math.min(2, (el.clientWidth - 4) / layout.width, (window.innerHeight * BOX_HEIGHT - 4) / layout.height)));
  };
  const onWheel = (event: WheelEvent) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    step(event.deltaY < 0 ? 1 : -1);
  };

  const select = (id: string) => onSelect?.(id);

  return (
    <div class="graph">
      <div class="graph-tools" role="toolbar" aria-label={t('Graph view')}>
        <button type="button" onClick={() => step(-1)} aria-label={t('Zoom out')}>
          −
        </button>
        <span class="zoom" aria-live="polite">
          {Math.round(scale * 100)}%
        </span>
        <button type="button" onClick={() => step(1)} aria-label={t('Zoom in')}>
          +
        </button>
        <button type="button" onClick={() => setZoom(1)}>
          100%
        </button>
        <button type="button" onClick={fit}>
          {t('Fit')}
        </button>
        <span class="muted">{t('{n} nodes, {m} links', { n: view.nodes.length, m: view.edges.length })}</span>
        {states ? <Legend /> : <KindLegend />}
      </div>
      <div class="graph-box" ref={box} onWheel={onWheel}>
        {/* Drawn once its scale is known (the box is measured first, empty): the browser lays the drawing out once. */}
        {zoom !== undefined && (
          <svg
            width={layout.width * scale}
            height={layout.height * scale}
            viewBox={`0 0 ${layout.width} ${layout.height}`}
            role="group"
            aria-label={t('Workflow graph')}
            data-nodes={view.nodes.length}>
            <defs>
              <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M0,0L10,5L0,10z" class="arrow-head" />
              </marker>
            </defs>
            <g class="edges">
              {layout.edges.map((e, i) => (
                <path key={i} d={pathOf(e.points)} class="edge" marker-end="url(#arrow)" />
              ))}
            </g>
            <g class="edge-labels">
              {layout.labels.map((l, i) => (
                <text key={i} x={l.x} y={l.y + 4} class="edge-label" text-anchor="middle">
                  {l.text.length > 26 ? `${l.text.slice(0, 25)}…` : l.text}
                </text>
              ))}
            </g>
            <g class="nodes">
              {view.nodes.map((node) => {
                const p = layout.nodes.get(node.node_id);
                if (!p) return null;
                const [title, sub] = nodeLines(node);
                const state = states?.[node.node_id];
                const classes = ['node', `kind-${node.kind}`, state ? `st-${state}` : '', selected === node.node_id ? 'selected' : ''].join(' ');
                const x = p.x - p.width / 2;
                const y = p.y - NODE_HEIGHT / 2;
                return (
                  <g
                    key={node.node_id}
                    class={classes}
                    transform={`translate(${x.toFixed(1)},${y.toFixed(1)})`}
                    tabindex={0}
                    role="button"
                    aria-pressed={selected === node.node_id}
                    aria-label={`${title}, ${sub}${state ? `, ${t(state)}` : ''}`}
                    data-node={node.node_id}
                    onClick={() => select(node.node_id)}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter' || event.key === ' ') {
                        event.preventDefault();
                        select(node.node_id);
                      }
                    }}>
                    <title>{`${node.node_id}: ${title} (${sub})${state ? ` — ${t(state)}` : ''}`}</title>
                    <rect width={p.width} height={NODE_HEIGHT} rx={node.kind === 'tool' ? 6 : 20} />
                    <text x={p.width / 2} y={19} class="node-title" text-anchor="middle">
                      {clip(title, p.width)}
                    </text>
                    <text x={p.width / 2} y={35} class="node-sub" text-anchor="middle">
                      {clip(sub, p.width)}
                    </text>
                  </g>
                );
              })}
            </g>
          </svg>
        )}
      </div>
    </div>
  );
}

/** Shorten a label to what fits a node of that width (about 7 px a character). */
function clip(text: string, width: number): string {
  const room = Math.floor((width - 16) / 7);
  return text.length > room ? `${text.slice(0, Math.max(1, room - 1))}…` : text;
}

function KindLegend() {
  return (
    <span class="legend" aria-hidden="true">
      <span class="swatch kind-load" /> {t('load data')} <span class="swatch kind-tool" /> {t('tool')} <span class="swatch kind-store" /> {t('store data')}
    </span>
  );
}

const STATES: JobStatus[] = ['waiting', 'queued', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'];

function Legend() {
  return (
    <span class="legend" aria-hidden="true">
      {STATES.map((s) => (
        <span key={s} class="legend-item">
          <span class={`swatch st-${s}`} /> {t(s)}
        </span>
      ))}
    </span>
  );
}
