/**
 * A cycle of a dependency graph, if it has one: the nodes in order, each depending on the next, the last on the first
 * (`[a, b]` for a -> b -> a; `[a]` for a node that depends on itself). Dependencies on nodes the graph does not hold are
 * ignored. Used wherever work is ordered by what it reads, so that a cycle is refused instead of waiting forever.
 */
export function findCycle<K>(deps: ReadonlyMap<K, readonly K[]>): K[] | undefined {
  const state = new Map<K, 'open' | 'done'>();
  for (const start of deps.keys()) {
    if (state.has(start)) continue;
    // Depth first, without recursion (an expansion may add thousands of jobs): the path and each node's next dependency.
    const path: K[] = [start];
    const next: number[] = [0];
    state.set(start, 'open');
    while (path.length > 0) {
      const node = path[path.length - 1]!;
      const children = deps.get(node)!;
      const i = next[next.length - 1]!;
      if (i >= children.length) {
        state.set(node, 'done');
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = i + 1;
      const child = children[i]!;
      if (!deps.has(child) || state.get(child) === 'done') continue;
      if (state.get(child) === 'open') return path.slice(path.indexOf(child));
      state.set(child, 'open');
      path.push(child);
      next.push(0);
    }
  }
  return undefined;
}

/**
 * The nodes of an acyclic graph (see findCycle) so that each comes after what it depends on, otherwise in their given
 * order. Dependencies on nodes the graph does not hold are ignored.
 */
export function dependencyOrder<K>(deps: ReadonlyMap<K, readonly K[]>): K[] {
  const placed = new Set<K>();
  const order: K[] = [];
  for (const start of deps.keys()) {
    if (placed.has(start)) continue;
    const path: K[] = [start];
    const next: number[] = [0];
    while (path.length > 0) {
      const node = path[path.length - 1]!;
      const children = deps.get(node)!;
      const i = next[next.length - 1]!;
      if (i >= children.length) {
        path.pop();
        next.pop();
        if (!placed.has(node)) {
          placed.add(node);
          order.push(node);
        }
        continue;
      }
      next[next.length - 1] = i + 1;
      const child = children[i]!;
      if (deps.has(child) && !placed.has(child) && !path.includes(child)) {
        path.push(child);
        next.push(0);
      }
    }
  }
  return order;
}
