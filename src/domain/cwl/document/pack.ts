import type { CwlVersion } from '../model.js';
import { basenameOfUri, isAbsoluteUri, scopedCandidates, splitFragment } from '../uri.js';
import { isFileObject } from './file-literals.js';
import { isExtensionKey } from './identifiers.js';
import type { LoadedDocument, ResolvedDocument } from './load.js';

/**
 * A loaded document and everything it runs as one CWL document, in the shape `cwltool --pack` gives: a `$graph` of
 * every process of every file read, each `run` naming its entry (`run: '#tool.cwl'`), `$import`, `$include` and
 * `$mixin` expanded, `$namespaces` and `$schemas` merged at the top. A server loads it without the client's files:
 * it is what `gdflow cwl run` sends and `gdflow cwl import` keeps.
 *
 * It is made from the loader's resolved form (every identifier an absolute URI), so that nothing is guessed: each
 * file's URI is replaced by a name of its own in the packed document. The file that was loaded keeps its own
 * fragments (`wf.cwl#main/step` is `#main/step`, `wf.cwl#inp` is `#inp`), and its process is `#main` when it has no
 * id; every other file is named after its file name (`tool.cwl#inp` is `#tool.cwl/inp`, a second `tool.cwl`
 * elsewhere `#tool.cwl_2`). Bare references left for the loader's scoped search (`source: step1/out`) keep working
 * because every scope is renamed the same way; a bare type name (`type: MyRecord`), which is looked up from the
 * document's root, is made absolute first, since the root of another file is one level down once packed. File and Directory objects (defaults,
 * InitialWorkDirRequirement literals) keep their absolute `location`s: the caller uploads them and rewrites those.
 * A process keeps its own `cwlVersion` where it differs from the loaded one's (a v1.0 tool run by a v1.2 workflow).
 */
export interface PackedDocument {
  /** The packed document, as JSON: one process, or a `$graph` when there are several. */
  readonly document: Record<string, unknown>;
  /** The id in it of the process that was loaded (`#main`, `#revsort`, ...). */
  readonly process: string;
}

type Json = Record<string, unknown>;

/** Fields whose strings are identifiers or references to them, after the loader's resolution. */
const REFERENCE_FIELDS = new Set(['id', 'name', 'source', 'outputSource', 'scatter', 'type', 'items', 'symbols', 'out']);
/** Fields of a document's root that describe the whole document, never kept on a `$graph` entry. */
const ROOT_FIELDS = new Set(['cwlVersion']);
const TYPE_KINDS = new Set(['record', 'enum', 'array']);

export interface PackOptions {
  /**
   * Only the loaded process and the processes it runs, the loaded one named `#main`: a `$graph` entry of a packed
   * document made a document of its own (what `gdflow cwl export` gives for a tool imported with a workflow).
   */
  readonly asMain?: boolean;
}

export function packDocument(loaded: LoadedDocument, options: PackOptions = {}): PackedDocument {
  const [root, ...others] = loaded.documents;
  if (root === undefined) throw new Error('packDocument needs a loaded document');
  const selected = splitFragment(loaded.process.id);
  const renamed = options.asMain && selected[0] === root.uri && selected[1] !== undefined && !selected[1].includes('/') ? selected[1] : undefined;
  const names = new DocumentNames(root, others, loaded.files, renamed);
  const packer = new Packer(names, loaded.documents);
  const kept = options.asMain ? packer.reachable(loaded.process.id) : undefined;
  const entries = loaded.documents.flatMap((document) =>
    document.processes.filter((node) => kept === undefined || kept.has(String(node.id))).map((node) => packer.entry(node, document.version, root.version)),
  );
  const top: Json = { cwlVersion: root.version };
  const namespaces = Object.assign({}, ...[...loaded.documents].reverse().map((d) => d.namespaces)) as Record<string, string>;
  if (Object.keys(namespaces).length > 0) top.$namespaces = namespaces;
  const schemas = [...new Set(loaded.documents.flatMap((d) => d.schemas))];
  if (schemas.length > 0) top.$schemas = schemas;
  const process = names.map(loaded.process.id) ?? loaded.process.id;
  const [only] = entries;
  if (entries.length === 1 && only !== undefined && only.cwlVersion === undefined) return { document: { ...top, ...only }, process };
  return { document: { ...top, $graph: entries }, process };
}

/** What each file's URI becomes in the packed document. */
class DocumentNames {
  /** File URI -> the fragment prefix that replaces it (`''`: its fragments are kept as they are). */
  private readonly prefixes = new Map<string, string>();

  /** What the loaded file's process is called when it has no id (`#main`, unless the file uses that name). */
  private readonly rootName: string;

  /** `renamed`: a fragment of the loaded file whose process is to be `#main` (and its ids `#main/...`). */
  constructor(
    root: ResolvedDocument,
    others: readonly ResolvedDocument[],
    files: readonly string[],
    private readonly renamed?: string,
  ) {
    // The loaded file's fragments are kept: their first segments are taken.
    const taken = new Set<string>();
    for (const id of identifiers(root.processes)) {
      const fragment = splitFragment(id)[1];
      if (fragment !== undefined && splitFragment(id)[0] === root.uri) taken.add(fragment.split('/')[0]!);
    }
    this.prefixes.set(root.uri, '');
    this.rootName = unused('main', taken);
    for (const uri of [...others.map((d) => d.uri), ...files]) {
      if (!this.prefixes.has(uri)) this.prefixes.set(uri, unused(basenameOfUri(uri).replace(/[^A-Za-z0-9._-]/g, '_') || 'document', taken));
    }
  }

  /** The packed form of an absolute identifier of a file read, or undefined for any other string. */
  map(uri: string): string | undefined {
    const [document, fragment] = splitFragment(uri);
    const prefix = this.prefixes.get(document);
    if (prefix === undefined) return undefined;
    if (fragment === undefined || fragment === '') return `#${prefix === '' ? this.rootName : prefix}`;
    if (prefix !== '') return `#${prefix}/${fragment}`;
    const renamed = this.renamed !== undefined && (fragment === this.renamed || fragment.startsWith(`${this.renamed}/`));
    return renamed ? `#main${fragment.slice(this.renamed.length)}` : `#${fragment}`;
  }
}

/** `name`, or `name_2`, `name_3`, ... : the first one not taken, which is taken from now on. */
function unused(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** Every identifier (`id`, `name`) under the nodes; those of named types also go to `types`. */
function* identifiers(value: unknown, types?: Set<string>): Generator<string> {
  if (Array.isArray(value)) {
    for (const item of value) yield* identifiers(item, types);
    return;
  }
  if (typeof value !== 'object' || value === null || isFileObject(value)) return;
  const node = value as Json;
  for (const key of ['id', 'name'] as const) {
    const id = node[key];
    if (typeof id !== 'string') continue;
    if (types !== undefined && typeof node.type === 'string' && TYPE_KINDS.has(node.type)) types.add(id);
    yield id;
  }
  for (const [key, child] of Object.entries(node)) if (key !== 'default' && !isExtensionKey(key)) yield* identifiers(child, types);
}

class Packer {
  /** A file's URI -> the id of the process `run: FILE` selects in it (its only process, or `#main`). */
  private readonly mainProcess = new Map<string, string>();
  /** The absolute names of every named type (record, enum, array) of every file. */
  private readonly types = new Set<string>();
  /** Every top-level process of every file, by id. */
  private readonly processes = new Map<string, Json>();

  constructor(
    private readonly names: DocumentNames,
    documents: readonly ResolvedDocument[],
  ) {
    for (const document of documents) {
      const only = document.processes.length === 1 ? document.processes[0]?.id : undefined;
      this.mainProcess.set(document.uri, typeof only === 'string' ? only : `${document.uri}#main`);
      for (const node of document.processes) this.processes.set(String(node.id), node);
      // Walked for the type definitions it records.
      Array.from(identifiers(document.processes, this.types));
    }
  }

  /** The ids of the top-level processes `id` runs, itself included, through `run` references at any depth. */
  reachable(id: string): Set<string> {
    const kept = new Set<string>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(visit);
      if (typeof value !== 'object' || value === null || isFileObject(value)) return;
      const node = value as Json;
      if (typeof node.run === 'string') enter(this.runTarget(node.run));
      for (const [key, child] of Object.entries(node)) if (key !== 'default' && !isExtensionKey(key)) visit(child);
    };
    const enter = (target: string): void => {
      const node = this.processes.get(target);
      if (node === undefined || kept.has(target)) return;
      kept.add(target);
      visit(node);
    };
    enter(id);
    return kept;
  }

  entry(node: Json, version: CwlVersion, rootVersion: CwlVersion): Json {
    const entry: Json = {};
    for (const [key, value] of Object.entries(this.rewrite(node, String(node.id)) as Json)) {
      if (!key.startsWith('$') && !ROOT_FIELDS.has(key)) entry[key] = value;
    }
    if (version !== rootVersion) entry.cwlVersion = version;
    return entry;
  }

  /** `scope` is the (original) identifier of the nearest node around `value` that has one. */
  private rewrite(value: unknown, scope: string): unknown {
    if (Array.isArray(value)) return value.map((item) => this.rewrite(item, scope));
    if (typeof value !== 'object' || value === null || isFileObject(value)) return value;
    const node = value as Json;
    const inner = typeof node.id === 'string' ? node.id : typeof node.name === 'string' ? node.name : scope;
    const out: Json = {};
    for (const [key, child] of Object.entries(node)) {
      // Defaults are data, and extensions are not CWL's to read: both stay as written (their files' locations are absolute).
      if (key === 'default' || isExtensionKey(key)) out[key] = child;
      else if (key === 'run' && typeof child === 'string') out[key] = this.reference(this.runTarget(child));
      else if (key === 'type' || key === 'items') out[key] = this.references(child, inner, true);
      else if (REFERENCE_FIELDS.has(key)) out[key] = this.references(child, inner, false);
      else out[key] = this.rewrite(child, inner);
    }
    return out;
  }

  /** Strings of a reference field renamed, anything else walked (an inline type is an object with ids inside). */
  private references(value: unknown, scope: string, isType: boolean): unknown {
    if (typeof value === 'string') return this.reference(isType ? this.typeName(value, scope) : value);
    if (Array.isArray(value)) return value.map((item) => this.references(item, scope, isType));
    return this.rewrite(value, scope);
  }

  /** A bare type name as the loader finds it (schema-salad's search from the scope, refScope 2), else as it is. */
  private typeName(name: string, scope: string): string {
    if (name.includes('#') || isAbsoluteUri(name)) return name;
    return scopedCandidates(name, scope, 2).find((uri) => this.types.has(uri)) ?? name;
  }

  private reference(value: string): string {
    return this.names.map(value) ?? value;
  }

  /** `run: tool.cwl` names the file's only process, or its `#main`. */
  private runTarget(uri: string): string {
    const [document, fragment] = splitFragment(uri);
    return fragment === undefined ? (this.mainProcess.get(document) ?? uri) : uri;
  }
}
