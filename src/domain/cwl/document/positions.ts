import type { SourcePosition } from '../errors.js';

/**
 * Where each parsed object and array came from, kept beside the plain values (as ruamel's `.lc`
 * is kept beside the dicts schema-salad reads): the loader works on plain JSON, and any step that
 * wants to report a problem asks here for the position of a node, one of its keys, or one of its
 * items. Nodes built by the loader (a map form turned into a list) copy the positions of the
 * nodes they come from, so positions survive `$import`, `$include` and normalization.
 *
 * A WeakMap, so that positions go away with the values.
 */
interface NodePositions {
  readonly at: SourcePosition;
  /** Object: key -> position of the key. Array: index -> position of the item. */
  readonly children: Map<string | number, SourcePosition>;
}

const table = new WeakMap<object, NodePositions>();

/** Records where `node` starts. */
export function setPosition(node: object, at: SourcePosition): void {
  const known = table.get(node);
  table.set(node, { at, children: known?.children ?? new Map<string | number, SourcePosition>() });
}

/** Records where the key (object) or item (array) `child` of `node` is written. */
export function setChildPosition(node: object, child: string | number, at: SourcePosition): void {
  let known = table.get(node);
  if (!known) {
    known = { at, children: new Map() };
    table.set(node, known);
  }
  known.children.set(child, at);
}

/**
 * The position of `node`, or of its key or item `child` (falling back to the node's own position,
 * then to nothing when the value was not parsed from a document).
 */
export function positionOf(node: unknown, child?: string | number): SourcePosition | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const known = table.get(node);
  if (!known) return undefined;
  return (child !== undefined ? known.children.get(child) : undefined) ?? known.at;
}

/** Gives `to` the positions of `from` (a rebuilt node keeps the place of the node it replaces). */
export function copyPositions(from: object, to: object): void {
  const known = table.get(from);
  if (known) table.set(to, { at: known.at, children: new Map(known.children) });
}
