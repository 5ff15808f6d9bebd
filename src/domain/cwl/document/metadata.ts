import type { Diagnostics } from '../errors.js';
import type { CwlVersion } from '../model.js';
import { resolveReference } from '../uri.js';
import { positionOf } from './positions.js';
import { describeValue, isPlainObject } from './shorthands.js';

type Json = Record<string, unknown>;

/** What the root of a document says about all of it. */
export interface DocumentMetadata {
  /** Base for relative references: the document's URI, or its `$base`. */
  readonly base: string;
  readonly version: CwlVersion;
  readonly namespaces: Readonly<Record<string, string>>;
  /** `$schemas`, absolute. */
  readonly schemas: readonly string[];
  /** The process nodes the document holds: its `$graph` entries, or the root itself. */
  readonly processes: readonly Json[];
  readonly isGraph: boolean;
}

export const SUPPORTED_VERSIONS: readonly CwlVersion[] = ['v1.0', 'v1.1', 'v1.2'];
const DEVELOPMENT_VERSIONS = ['v1.1.0-dev1', 'v1.2.0-dev1', 'v1.2.0-dev2', 'v1.2.0-dev3', 'v1.2.0-dev4', 'v1.2.0-dev5'];

/**
 * Reads the root of a document (directives expanded). `inherited` is the version of the document
 * whose `run` names this one: cwltool lets a referenced file without `cwlVersion` take it.
 */
export function readMetadata(root: unknown, uri: string, inherited: CwlVersion | undefined, diagnostics: Diagnostics): DocumentMetadata | undefined {
  // A document that is a list is a $graph without metadata.
  const node: Json = Array.isArray(root) ? { $graph: root } : isPlainObject(root) ? root : {};
  if (!Array.isArray(root) && !isPlainObject(root)) {
    diagnostics.error(
      `a CWL document must be an object (a process) or hold a $graph, not ${describeValue(root)}`,
      positionOf(root) ?? { uri, line: 1, column: 1 },
    );
    return undefined;
  }
  const base = typeof node.$base === 'string' ? resolveReference(node.$base, uri) : uri;
  const namespaces = readNamespaces(node, diagnostics);
  const schemas = (Array.isArray(node.$schemas) ? node.$schemas : node.$schemas === undefined ? [] : [node.$schemas]).flatMap((s) =>
    typeof s === 'string' ? [resolveReference(s, base)] : [],
  );
  const version = readVersion(node, uri, inherited, diagnostics);
  if (version === undefined) return undefined;
  if (!('$graph' in node)) return { base, version, namespaces, schemas, processes: [node], isGraph: false };
  if (!Array.isArray(node.$graph)) {
    diagnostics.error(`'$graph' must be a list of processes, not ${describeValue(node.$graph)}`, positionOf(node, '$graph'));
    return undefined;
  }
  const processes = node.$graph.filter((entry, index): entry is Json => {
    if (isPlainObject(entry) && (typeof entry.id === 'string' || (node.$graph as unknown[]).length === 1)) return true;
    diagnostics.error(`each $graph entry must be a process with an id, not ${describeValue(entry)}`, positionOf(node.$graph, index));
    return false;
  });
  return { base, version, namespaces, schemas, processes, isGraph: true };
}

function readNamespaces(node: Json, diagnostics: Diagnostics): Record<string, string> {
  const value = node.$namespaces;
  if (value === undefined) return {};
  if (!isPlainObject(value)) {
    diagnostics.error(`'$namespaces' must map prefixes to URIs, not ${describeValue(value)}`, positionOf(node, '$namespaces'));
    return {};
  }
  const out: Record<string, string> = {};
  for (const [prefix, ns] of Object.entries(value)) {
    if (typeof ns === 'string') out[prefix] = ns;
    else diagnostics.error(`namespace '${prefix}' must be a URI, not ${describeValue(ns)}`, positionOf(value, prefix));
  }
  return out;
}

function readVersion(node: Json, uri: string, inherited: CwlVersion | undefined, diagnostics: Diagnostics): CwlVersion | undefined {
  const at = positionOf(node, 'cwlVersion') ?? positionOf(node) ?? { uri, line: 1, column: 1 };
  const given = node.cwlVersion;
  if (given === undefined || given === null) {
    if (inherited) return inherited;
    diagnostics.error('the document has no cwlVersion (add `cwlVersion: v1.2`)', at);
    return undefined;
  }
  return checkVersion(given, diagnostics, at);
}

/** A `cwlVersion` value as a supported version, or an error saying why it is not one. */
export function checkVersion(given: unknown, diagnostics: Diagnostics, at: Parameters<Diagnostics['error']>[1]): CwlVersion | undefined {
  const version = typeof given === 'string' ? given.replace(/^(cwl:|https:\/\/w3id\.org\/cwl\/cwl#)/, '') : given;
  if (SUPPORTED_VERSIONS.includes(version as CwlVersion)) return version as CwlVersion;
  if (DEVELOPMENT_VERSIONS.includes(version as string)) {
    diagnostics.error(`cwlVersion ${String(version)} is a development version; update the document to v1.2`, at);
  } else {
    diagnostics.error(`unsupported cwlVersion ${describeValue(given)} (supported: ${SUPPORTED_VERSIONS.join(', ')})`, at);
  }
  return undefined;
}
