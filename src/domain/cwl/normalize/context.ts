import type { Diagnostics, SourcePosition } from '../errors.js';
import type { CwlProcess, CwlType, CwlVersion } from '../model.js';

/**
 * What normalization of one process needs from the load around it. Normalization is synchronous:
 * every document a `run` names is read and resolved before it starts.
 */
export interface NormalizeContext {
  readonly diagnostics: Diagnostics;
  /** The version the process is checked against (its own `cwlVersion`, else its document's). */
  readonly version: CwlVersion;
  readonly namespaces: Readonly<Record<string, string>>;
  readonly schemas: readonly string[];
  /** Every identified node of the loaded documents (named types, processes), by absolute URI. */
  readonly index: ReadonlyMap<string, object>;
  /** Named types already normalized (shared across documents); `null` while one is being read. */
  readonly namedTypes: Map<string, CwlType | null>;
  /** The process at `uri` (another file, a `$graph` entry), normalized once and shared. */
  runProcess(uri: string, at: SourcePosition | undefined): CwlProcess | undefined;
  /** Normalizes a process embedded in a step (same document, possibly its own cwlVersion). */
  embeddedProcess(node: Record<string, unknown>): CwlProcess | undefined;
}
