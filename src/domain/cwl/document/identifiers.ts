import type { Diagnostics, SourcePosition } from '../errors.js';
import { CWL_NAMESPACE, expandPrefix, holdsExpression, isAbsoluteUri, resolveReference, SALAD_NAMESPACE, scopedId } from '../uri.js';
import { importBaseOf } from './directives.js';
import { resolveFileLiteral } from './file-literals.js';
import { copyPositions, positionOf } from './positions.js';
import { expandTypeShorthand, isPlainObject, mapStrings, mapToList } from './shorthands.js';

/**
 * schema-salad's resolution pass over a document whose directives are expanded, before the
 * CWL-specific normalization reads it:
 * - map forms (mapSubject/mapPredicate) become lists: `inputs: {a: File}` is `[{id: a, type: File}]`,
 *   sorted by key as schema-salad sorts them;
 * - identifiers (`id`, and `name` of types and record fields) become absolute URIs scoped by the
 *   enclosing identifier (`#main/step1/in1`); a step's embedded `run` is scoped under `step/run`;
 *   enum `symbols` and step `out` names likewise; a process without an id takes its scope's URI;
 * - type shorthands (`File[]?`) expand; references with a fragment or a scheme (`run`, `source`,
 *   `outputSource`, `scatter`, `type`, `format`, File `location`/`path`) become absolute; bare names
 *   (`source: step1/out`, `type: MyRecord`) are left for the scoped search of normalization;
 * - every node with an identifier is entered in `index` (named types, processes of a `$graph`).
 * `default` values are data: only the File and Directory locations in them are resolved.
 */
export interface IdentifierContext {
  readonly namespaces: Readonly<Record<string, string>>;
  readonly diagnostics: Diagnostics;
  readonly index: Map<string, object>;
  /** `run` references to other documents, to load before normalization. */
  readonly runReferences: { uri: string; at?: SourcePosition }[];
}

type Json = Record<string, unknown>;

/** Fields whose map form is a list keyed by `subject` (the value itself when not an object, under `predicate`). */
const ID_MAPS: Readonly<Record<string, { subject: string; predicate?: string }>> = {
  inputs: { subject: 'id', predicate: 'type' },
  outputs: { subject: 'id', predicate: 'type' },
  requirements: { subject: 'class' },
  hints: { subject: 'class' },
  steps: { subject: 'id' },
  in: { subject: 'id', predicate: 'source' },
  fields: { subject: 'name', predicate: 'type' },
  envDef: { subject: 'envName', predicate: 'envValue' },
  packages: { subject: 'package', predicate: 'specs' },
};

const PROCESS_CLASSES = new Set(['CommandLineTool', 'ExpressionTool', 'Workflow', 'Operation']);
const TYPE_KEYWORDS = new Set(['record', 'enum', 'array']);
/** Names that are terms of the CWL/salad vocabulary rather than references. */
const TYPE_VOCABULARY = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'string',
  'File',
  'Directory',
  'Any',
  'stdin',
  'stdout',
  'stderr',
  ...TYPE_KEYWORDS,
]);
const SCOPED_REFERENCES = new Set(['source', 'outputSource', 'scatter']);

export function resolveIdentifiers(value: unknown, scope: string, context: IdentifierContext): unknown {
  return new IdentifierResolver(context).walk(value, scope, undefined);
}

/** A key that belongs to an extension: a namespace prefix or an absolute URI. */
export const isExtensionKey = (key: string): boolean => key.includes(':');

class IdentifierResolver {
  constructor(private readonly context: IdentifierContext) {}

  walk(value: unknown, scope: string, field: string | undefined): unknown {
    if (Array.isArray(value)) {
      const out = value.map((item) => this.walk(item, scope, field));
      copyPositions(value, out);
      return out;
    }
    if (typeof value !== 'object' || value === null) return value;
    const node = value as Json;
    const base = importBaseOf(node) ?? scope;
    if (node.class === 'File' || node.class === 'Directory') return resolveFileLiteral(node, base, this.context.namespaces);
    const out: Json = {};
    copyPositions(node, out);
    const inner = this.identify(node, out, base, field);
    for (const [key, child] of Object.entries(node)) {
      if (key === 'id' || (key === 'name' && out.name !== undefined)) continue;
      out[key] = this.field(key, child, node, inner, base);
    }
    return out;
  }

  /** Sets the absolute identifier of `node` on `out`, returns the scope for its children. */
  private identify(node: Json, out: Json, scope: string, field: string | undefined): string {
    const isProcess = typeof node.class === 'string' && PROCESS_CLASSES.has(node.class);
    const isNamed = field === 'fields' || (typeof node.type === 'string' && TYPE_KEYWORDS.has(node.type));
    const key = typeof node.id === 'string' ? 'id' : isNamed && typeof node.name === 'string' ? 'name' : undefined;
    if (key === undefined) {
      if (!isProcess) return scope;
      out.id = scope;
      this.register(scope, out);
      return scope;
    }
    const id = scopedId(node[key] as string, scope, this.context.namespaces);
    out[key] = id;
    this.register(id, out);
    return id;
  }

  /**
   * Enters a node in the index. Identifiers need not be unique (an input and an output, or a step
   * input and output, may share a name and so a URI); the lists that must not repeat a name check
   * it when they are normalized. What the index is read for (named types, processes) is kept when
   * a parameter of the same URI comes later.
   */
  private register(id: string, node: object): void {
    const known = this.context.index.get(id);
    if (known === undefined || !isReferenceTarget(known) || isReferenceTarget(node)) this.context.index.set(id, node);
  }

  private field(key: string, value: unknown, node: Json, scope: string, base: string): unknown {
    if (key.startsWith('$') || isExtensionKey(key)) return value;
    if (key === 'default') return this.defaults(value, base);
    const idMap = ID_MAPS[key];
    const listed = idMap && isPlainObject(value) ? mapToList(value, idMap, this.context.diagnostics) : value;
    switch (key) {
      case 'symbols':
      case 'out':
        return this.identityList(listed, scope, key);
      case 'run':
        if (typeof listed === 'string') {
          const uri = resolveReference(listed, base, this.context.namespaces);
          this.context.runReferences.push({ uri, at: positionOf(node, key) });
          return uri;
        }
        return this.walk(listed, `${scope}/run`, key);
      case 'type':
      case 'items':
        return this.typeReference(listed, scope, base, key, positionOf(node, key));
      case 'format':
        return mapStrings(listed, (s) => (holdsExpression(s) ? s : resolveReference(s, base, this.context.namespaces)));
      default:
        if (SCOPED_REFERENCES.has(key)) return mapStrings(listed, (s) => this.reference(s, base));
        return this.walk(listed, scope, key);
    }
  }

  private defaults(value: unknown, base: string): unknown {
    if (Array.isArray(value)) {
      const out = value.map((item) => this.defaults(item, base));
      copyPositions(value, out);
      return out;
    }
    if (!isPlainObject(value)) return value;
    if (value.class === 'File' || value.class === 'Directory') return resolveFileLiteral(value, base, this.context.namespaces);
    const out: Json = {};
    copyPositions(value, out);
    for (const [key, child] of Object.entries(value)) out[key] = this.defaults(child, base);
    return out;
  }

  /** `symbols` and `out`: each string is an identifier in the node's scope (objects walk as usual). */
  private identityList(value: unknown, scope: string, key: string): unknown {
    if (!Array.isArray(value)) return this.walk(value, scope, key);
    const out = value.map((item) => {
      if (typeof item !== 'string') return this.walk(item, scope, key);
      const id = scopedId(item, scope, this.context.namespaces);
      if (key === 'out') this.register(id, { id });
      return id;
    });
    copyPositions(value, out);
    return out;
  }

  /** A reference with a fragment or scheme becomes absolute; a bare name waits for the scoped search. */
  private reference(ref: string, base: string): string {
    const expanded = expandPrefix(ref, this.context.namespaces);
    return expanded.includes('#') || isAbsoluteUri(expanded) ? resolveReference(ref, base, this.context.namespaces) : ref;
  }

  /** A `type`/`items` value: shorthands expanded, names made absolute or left bare, inline types walked. */
  private typeReference(value: unknown, scope: string, base: string, key: string, at: SourcePosition | undefined): unknown {
    if (Array.isArray(value)) {
      const out = value.map((item, index) => this.typeReference(item, scope, base, key, positionOf(value, index)));
      copyPositions(value, out);
      return out;
    }
    if (typeof value === 'string') return this.typeName(expandTypeShorthand(value, at), base);
    return this.walk(value, scope, key);
  }

  private typeName(value: unknown, base: string): unknown {
    if (typeof value === 'string') return vocabularyTerm(value) ?? this.reference(value, base);
    if (Array.isArray(value)) {
      const out = value.map((item) => this.typeName(item, base));
      copyPositions(value, out);
      return out;
    }
    if (!isPlainObject(value)) return value;
    const out: Json = { ...value, items: this.typeName(value.items, base) };
    copyPositions(value, out);
    return out;
  }
}

/** A node that `run` or `type` may name: a process or a record/enum/array type. */
const isReferenceTarget = (node: object): boolean => {
  const json = node as Json;
  return (typeof json.class === 'string' && PROCESS_CLASSES.has(json.class)) || (typeof json.type === 'string' && TYPE_KEYWORDS.has(json.type));
};

/** `cwl:File`, `sld:string` and their full URIs as the plain vocabulary term. */
function vocabularyTerm(name: string): string | undefined {
  if (TYPE_VOCABULARY.has(name)) return name;
  for (const prefix of ['cwl:', 'sld:', CWL_NAMESPACE, SALAD_NAMESPACE]) {
    if (name.startsWith(prefix) && TYPE_VOCABULARY.has(name.slice(prefix.length))) return name.slice(prefix.length);
  }
  return undefined;
}
