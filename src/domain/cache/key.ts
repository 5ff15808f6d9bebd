import { createHash } from 'node:crypto';
import { stringifyExactJson } from '../../contract/exact-json.js';

/**
 * A job's call-cache key (docs/tasks.md, "Call caching"): a hash of what decides its outputs. Resources are left
 * out (more memory does not change a result), and so is anything about the task it belongs to.
 */
export interface CacheParts {
  /** The version of this recipe: a key made another way never matches. */
  v: 1;
  tool: { name: string; version: number; /** sha256 of the definition without its resources and policies. */ digest: string };
  /** The image reference and, when the job runs in a container, the digest it resolved to. */
  image: string;
  imageDigest: string | null;
  /**
   * Sandbox path of each input file → the sha256 of its content (a stored item, or the output of an upstream job
   * that has no key), or `<upstream job's key>:<its path>` for a file an upstream job made.
   */
  inputs: Record<string, string>;
  /** Parameter values after defaults. */
  parameters: Record<string, unknown>;
  /** The rendered command, with where stdin comes from and stdout goes. */
  command: string;
  stdin: string | null;
  stdout: string | null;
}

/** JSON with object keys sorted, so that equal documents hash the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return stringifyExactJson(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function cacheKeyOf(parts: CacheParts): string {
  return sha256(canonicalJson(parts));
}

/** One way two jobs' keys differ, in words a user can act on. */
export interface KeyDifference {
  part: 'tool' | 'tool_version' | 'tool_definition' | 'image' | 'image_digest' | 'input' | 'parameter' | 'command';
  /** The input's sandbox path or the parameter's name, for those parts. */
  name?: string;
  /** This job's value and the other job's (null where one has none). */
  this: unknown;
  other: unknown;
  message: string;
}

const short = (hash: unknown) => (typeof hash === 'string' ? hash.slice(0, 12) : String(hash));

/** Exactly which parts of two keys differ (empty: the same key). */
export function keyDifferences(mine: CacheParts, other: CacheParts): KeyDifference[] {
  const out: KeyDifference[] = [];
  if (mine.tool.name !== other.tool.name)
    out.push({ part: 'tool', this: mine.tool.name, other: other.tool.name, message: `a different tool: ${mine.tool.name}, not ${other.tool.name}` });
  if (mine.tool.version !== other.tool.version) {
    out.push({
      part: 'tool_version',
      this: mine.tool.version,
      other: other.tool.version,
      message: `tool version ${mine.tool.version}, not ${other.tool.version}`,
    });
  } else if (mine.tool.digest !== other.tool.digest) {
    out.push({ part: 'tool_definition', this: mine.tool.digest, other: other.tool.digest, message: 'the tool definition changed (same version)' });
  }
  if (mine.image !== other.image)
    out.push({ part: 'image', this: mine.image, other: other.image, message: `image ${mine.image || '(none)'}, not ${other.image || '(none)'}` });
  else if (mine.imageDigest !== other.imageDigest) {
    out.push({
      part: 'image_digest',
      this: mine.imageDigest,
      other: other.imageDigest,
      message: `image ${mine.image} is now ${short(mine.imageDigest)}, was ${short(other.imageDigest)}`,
    });
  }
  for (const path of new Set([...Object.keys(mine.inputs), ...Object.keys(other.inputs)])) {
    const a = mine.inputs[path] ?? null;
    const b = other.inputs[path] ?? null;
    if (a === b) continue;
    const message = a === null ? `input ${path} is gone` : b === null ? `input ${path} is new` : `input ${path} changed (${short(a)}, was ${short(b)})`;
    out.push({ part: 'input', name: path, this: a, other: b, message });
  }
  for (const name of new Set([...Object.keys(mine.parameters), ...Object.keys(other.parameters)])) {
    const a = mine.parameters[name];
    const b = other.parameters[name];
    if (canonicalJson(a) === canonicalJson(b)) continue;
    out.push({
      part: 'parameter',
      name,
      this: a ?? null,
      other: b ?? null,
      message: `parameter ${name} is ${JSON.stringify(a ?? null)}, was ${JSON.stringify(b ?? null)}`,
    });
  }
  if (mine.command !== other.command || mine.stdin !== other.stdin || mine.stdout !== other.stdout) {
    out.push({ part: 'command', this: mine.command, other: other.command, message: 'the rendered command differs' });
  }
  return out;
}

/** Cache parts as read back from the store, when they are of this version. */
export function readCacheParts(value: unknown): CacheParts | undefined {
  if (typeof value !== 'object' || value === null || (value as { v?: unknown }).v !== 1) return undefined;
  return value as CacheParts;
}
