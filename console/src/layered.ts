/**
 * A layered (Sugiyama) layout of a DAG, left to right, for the workflow graphs:
 * 1. ranks: the longest path from a source; a source (a load step) is then moved next to its first consumer;
 * 2. links longer than one rank pass through dummy points, one per rank crossed;
 * 3. order within each rank: barycentre sweeps, keeping the order with the fewest crossings (counted exactly);
 * 4. vertical places: each rank in turn moves its nodes toward the mean of their neighbours in the rank before,
 *    keeping their order and spacing (a weighted isotonic regression: the closest such placement, in O(n));
 * 5. links: from a node's right side through their dummy points to the next node's left side.
 * Written for the console because dagre, the usual library, is slow on a 200-node workflow: in `npm run
 * bench:console`, @dagrejs/dagre 3.1.3 took 0.13–0.45 s in Node (nearly half of it in its ordering phase), 15–34x this
 * on the same graph (3–34 ms in Node; 23–47 ms in the browser with the labels' measuring), against a budget of 1 s
 * for layout and drawing together (BENCHMARKS.md, section "bench:console (issue 16)").
 */

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
}

export interface LayoutEdge {
  from: string;
  to: string;
}

export interface LayoutOptions {
  /** Space between two ranks (columns). */
  rankGap: number;
  /** Space between two nodes of a rank. */
  nodeGap: number;
  /** Space kept around a link's dummy point. */
  linkGap: number;
  margin: number;
  /** Ordering sweeps (each down or up). */
  sweeps?: number;
}

export interface Positioned {
  /** Node centres. */
  nodes: Map<string, { x: number; y: number; width: number; height: number; rank: number }>;
  /** Per edge, in the input's order: the points from the source's right side to the target's left side. */
  points: Array<Array<{ x: number; y: number }>>;
  width: number;
  height: number;
}

interface Item {
  /** Index in `items`. */
  i: number;
  rank: number;
  height: number;
  width: number;
  dummy: boolean;
  /** Neighbours in the rank before and after (item indices), with repeats for parallel links. */
  up: number[];
  down: number[];
  order: number;
  y: number;
}

export function layered(nodes: LayoutNode[], edges: LayoutEdge[], options: LayoutOptions): Positioned {
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const n = nodes.length;
  const succ: number[][] = Array.from({ length: n }, () => []);
  const pred: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) {
    const a = index.get(e.from);
    const b = index.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    succ[a]!.push(b);
    pred[b]!.push(a);
  }

  // 1. Ranks: longest path, in a topological order (Kahn's; a cycle, which a checked workflow has not, is cut).
  const rank = new Array<number>(n).fill(0);
  const indegree = pred.map((p) => p.length);
  const topo: number[] = [];
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) queue.push(i);
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q]!;
    topo.push(v);
    for (const w of succ[v]!) {
      rank[w] = Math.max(rank[w]!, rank[v]! + 1);
      if (--indegree[w]! === 0) queue.push(w);
    }
  }
  if (topo.length < n) for (let i = 0; i < n; i++) if (!topo.includes(i)) topo.push(i);
  for (const v of topo) if (pred[v]!.length === 0 && succ[v]!.length > 0) rank[v] = Math.max(0, Math.min(...succ[v]!.map((w) => rank[w]!)) - 1);

  // 2. Items: the nodes, and a dummy per rank a longer link crosses.
  const items: Item[] = nodes.map((node, i) => ({ i, rank: rank[i]!, height: node.height, width: node.width, dummy: false, up: [], down: [], order: 0, y: 0 }));
  const chains: number[][] = [];
  for (const e of edges) {
    const a = index.get(e.from);
    const b = index.get(e.to);
    if (a === undefined || b === undefined || a === b) {
      chains.push([]);
      continue;
    }
    const chain = [a];
    let last = a;
    for (let r = rank[a]! + 1; r < rank[b]!; r++) {
      const dummy: Item = { i: items.length, rank: r, height: 0, width: 0, dummy: true, up: [], down: [], order: 0, y: 0 };
      items.push(dummy);
      items[last]!.down.push(dummy.i);
      dummy.up.push(last);
      chain.push(dummy.i);
      last = dummy.i;
    }
    if (rank[b]! > rank[last]!) {
      items[last]!.down.push(b);
      items[b]!.up.push(last);
    }
    chain.push(b);
    chains.push(chain);
  }

  // 3. Order: first as a depth-first walk from the sources in the input's order meets the items, then sweeps.
  const ranks: number[][] = [];
  const seen = new Uint8Array(items.length);
  const visit = (start: number) => {
    const stack = [start];
    while (stack.length > 0) {
      const v = stack.pop()!;
      if (seen[v]) continue;
      seen[v] = 1;
      (ranks[items[v]!.rank] ??= []).push(v);
      const next = items[v]!.down;
      for (let k = next.length - 1; k >= 0; k--) if (!seen[next[k]!]) stack.push(next[k]!);
    }
  };
  for (const v of topo) if (items[v]!.up.length === 0) visit(v);
  for (let v = 0; v < items.length; v++) if (!seen[v]) visit(v);
  for (let r = 0; r < ranks.length; r++) ranks[r] ??= [];
  const renumber = () => ranks.forEach((row) => row.forEach((v, k) => (items[v]!.order = k)));
  renumber();

  let best = ranks.map((row) => [...row]);
  let fewest = crossings(ranks, items);
  const sweeps = options.sweeps ?? 16;
  for (let s = 0; s < sweeps && fewest > 0; s++) {
    const downward = s % 2 === 0;
    const sequence = downward
      ? ranks.map((_, r) => r).slice(1)
      : ranks
          .map((_, r) => r)
          .reverse()
          .slice(1);
    for (const r of sequence) {
      const row = ranks[r]!;
      const key = new Map<number, number>();
      for (const v of row) {
        const neighbours = downward ? items[v]!.up : items[v]!.down;
        key.set(v, neighbours.length === 0 ? items[v]!.order : neighbours.reduce((sum, w) => sum + items[w]!.order, 0) / neighbours.length);
      }
      row.sort((a, b) => key.get(a)! - key.get(b)! || items[a]!.order - items[b]!.order);
      row.forEach((v, k) => (items[v]!.order = k));
    }
    const count = crossings(ranks, items);
    if (count < fewest) {
      fewest = count;
      best = ranks.map((row) => [...row]);
    }
  }
  best.forEach((row, r) => (ranks[r] = row));
  renumber();

  // 4. Vertical places: stacked first, then pulled toward the neighbours, rank by rank, down and up, a few times.
  const gapBetween = (a: Item, b: Item) => (a.height + b.height) / 2 + (a.dummy || b.dummy ? options.linkGap : options.nodeGap);
  for (const row of ranks) {
    let y = 0;
    row.forEach((v, k) => {
      if (k > 0) y += gapBetween(items[row[k - 1]!]!, items[v]!);
      items[v]!.y = y;
    });
  }
  const tallest = Math.max(0, ...ranks.map((row) => (row.length ? items[row[row.length - 1]!]!.y : 0)));
  for (const row of ranks) {
    const shift = (tallest - (row.length ? items[row[row.length - 1]!]!.y : 0)) / 2;
    for (const v of row) items[v]!.y += shift;
  }
  for (let pass = 0; pass < 8; pass++) {
    const downward = pass % 2 === 0;
    const sequence = downward ? ranks.map((_, r) => r) : ranks.map((_, r) => r).reverse();
    for (const r of sequence) {
      const row = ranks[r]!;
      const desired = row.map((v) => {
        const it = items[v]!;
        const neighbours = downward ? it.up : it.down;
        const other = neighbours.length > 0 ? neighbours : downward ? it.down : it.up;
        return other.length > 0 ? other.reduce((s, w) => s + items[w]!.y, 0) / other.length : it.y;
      });
      const weights = row.map((v) => (items[v]!.dummy ? 4 : 1));
      const gaps = row.map((v, k) => (k === 0 ? 0 : gapBetween(items[row[k - 1]!]!, items[v]!)));
      placeInOrder(desired, weights, gaps).forEach((y, k) => (items[row[k]!]!.y = y));
    }
  }

  // 5. Coordinates: columns by rank, wide enough for their widest node.
  const columnWidth = ranks.map((row) => Math.max(0, ...row.map((v) => items[v]!.width)));
  const columnX: number[] = [];
  let x = options.margin;
  columnWidth.forEach((w, r) => {
    columnX[r] = x + w / 2;
    x += w + options.rankGap;
  });
  const top = Math.min(...items.map((it) => it.y - it.height / 2));
  const shiftY = options.margin - (Number.isFinite(top) ? top : 0);
  const placed = new Map<string, { x: number; y: number; width: number; height: number; rank: number }>();
  nodes.forEach((node, i) => placed.set(node.id, { x: columnX[rank[i]!]!, y: items[i]!.y + shiftY, width: node.width, height: node.height, rank: rank[i]! }));
  const points = chains.map((chain) =>
    chain.map((v, k) => {
      const it = items[v]!;
      const cx = columnX[it.rank]!;
      const y = it.y + shiftY;
      if (it.dummy) return { x: cx, y };
      return { x: k === 0 ? cx + it.width / 2 : cx - it.width / 2, y };
    }),
  );
  const bottom = Math.max(0, ...items.map((it) => it.y + shiftY + it.height / 2));
  return { nodes: placed, points, width: Math.max(1, x - options.rankGap + options.margin), height: Math.max(1, bottom + options.margin) };
}

/** Crossings between each pair of adjacent ranks, counted exactly (sorted links, inversions by a Fenwick tree). */
function crossings(ranks: number[][], items: Item[]): number {
  let total = 0;
  for (let r = 0; r + 1 < ranks.length; r++) {
    const pairs: Array<[number, number]> = [];
    for (const v of ranks[r]!) for (const w of items[v]!.down) if (items[w]!.rank === r + 1) pairs.push([items[v]!.order, items[w]!.order]);
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const size = ranks[r + 1]!.length;
    const tree = new Int32Array(size + 1);
    let inserted = 0;
    for (const [, b] of pairs) {
      // Links inserted so far that end after b cross this one.
      let atMost = 0;
      for (let k = b + 1; k > 0; k -= k & -k) atMost += tree[k]!;
      total += inserted - atMost;
      for (let k = b + 1; k <= size; k += k & -k) tree[k]!++;
      inserted++;
    }
  }
  return total;
}

/**
 * The places closest to `desired` (weighted least squares) that keep the given order and at least `gaps[k]`
 * between item k-1 and item k: pool-adjacent-violators over the positions with the gaps taken out.
 */
export function placeInOrder(desired: number[], weights: number[], gaps: number[]): number[] {
  const offsets: number[] = [];
  let sum = 0;
  for (let k = 0; k < desired.length; k++) {
    sum += gaps[k]!;
    offsets.push(sum);
  }
  // Blocks of pooled items: their weighted mean (in the shifted space), total weight, and size.
  const mean: number[] = [];
  const weight: number[] = [];
  const size: number[] = [];
  for (let k = 0; k < desired.length; k++) {
    mean.push(desired[k]! - offsets[k]!);
    weight.push(weights[k]!);
    size.push(1);
    while (mean.length > 1 && mean[mean.length - 2]! > mean[mean.length - 1]!) {
      const w = weight[weight.length - 2]! + weight[weight.length - 1]!;
      const m = (mean[mean.length - 2]! * weight[weight.length - 2]! + mean[mean.length - 1]! * weight[weight.length - 1]!) / w;
      const s = size[size.length - 2]! + size[size.length - 1]!;
      mean.splice(-2, 2, m);
      weight.splice(-2, 2, w);
      size.splice(-2, 2, s);
    }
  }
  const out: number[] = [];
  mean.forEach((m, b) => {
    for (let k = 0; k < size[b]!; k++) out.push(m + offsets[out.length]!);
  });
  return out;
}
