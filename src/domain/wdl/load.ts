import type { Document, StructDef, Task, Workflow } from './ast.js';
import { WdlError } from './errors.js';
import { parseDocument } from './parser/document.js';
import type { StructTable, WdlType } from './types.js';

/** The documents of a WDL workflow: the main source and the files of its dependencies zip. */
export interface WdlSources {
  /** The main document's text. */
  readonly main: string;
  /** Its file name, for messages and for resolving relative imports (default 'main.wdl'). */
  readonly mainName?: string;
  /** The dependencies zip's files: path inside the zip ('lib/tasks.wdl', '/' separators, no leading '/') -> text. */
  readonly files?: Readonly<Record<string, string>>;
}

/** A parsed document with its imports' documents by namespace. */
export interface LoadedDocument {
  readonly doc: Document;
  readonly namespaces: ReadonlyMap<string, LoadedDocument>;
}

/** A task or workflow a call names, with the document it is in. */
export type Callee =
  | { readonly kind: 'task'; readonly task: Task; readonly in: LoadedDocument }
  | { readonly kind: 'workflow'; readonly workflow: Workflow; readonly in: LoadedDocument };

/** How deep imports may nest: a cycle is an error before this. */
const MAX_DEPTH = 32;

/**
 * The main document and its imports, parsed (spec "Import Statements"): an import's path is relative to the importing
 * file and looked up among the sources' files; URLs are refused (gdflow fetches nothing while it loads a workflow).
 */
export function loadDocuments(sources: WdlSources): { main: LoadedDocument; structs: StructTable } {
  const mainName = normalize(sources.mainName ?? 'main.wdl');
  const files = new Map(Object.entries(sources.files ?? {}).map(([path, text]) => [normalize(path), text]));
  files.set(mainName, sources.main);
  const loaded = new Map<string, LoadedDocument>();
  const structs = new Map<string, Map<string, WdlType>>();
  const load = (path: string, chain: readonly string[]): LoadedDocument => {
    const known = loaded.get(path);
    if (known) return known;
    const doc = parseDocument(files.get(path)!, path);
    const namespaces = new Map<string, LoadedDocument>();
    for (const imp of doc.imports) {
      if (/^[a-z]+:\/\//i.test(imp.uri)) throw new WdlError(imp.pos, `import '${imp.uri}': gdflow imports only files of the workflow's dependencies, not URLs`);
      const target = normalize(joinPath(dirOf(path), imp.uri));
      if (!files.has(target)) throw new WdlError(imp.pos, `import '${imp.uri}': no file ${target} among the workflow's dependencies`);
      if (chain.includes(target) || chain.length > MAX_DEPTH)
        throw new WdlError(imp.pos, `import '${imp.uri}' imports itself (${[...chain, target].join(' -> ')})`);
      if (namespaces.has(imp.namespace)) throw new WdlError(imp.pos, `two imports are named '${imp.namespace}': give one another name with 'as'`);
      const child = load(target, [...chain, target]);
      namespaces.set(imp.namespace, child);
      for (const [from, to] of imp.aliases) {
        const members = structs.get(from) ?? child.doc.structs.find((s) => s.name === from);
        if (!members) throw new WdlError(imp.pos, `import '${imp.uri}' has no struct '${from}' to alias`);
        structs.set(to, members instanceof Map ? members : membersOf(members));
      }
    }
    for (const struct of doc.structs) if (!structs.has(struct.name)) structs.set(struct.name, membersOf(struct));
    const result = { doc, namespaces };
    loaded.set(path, result);
    return result;
  };
  return { main: load(mainName, [mainName]), structs };
}

function membersOf(struct: StructDef): Map<string, WdlType> {
  const members = new Map<string, WdlType>();
  for (const member of struct.members) {
    if (members.has(member.name)) throw new WdlError(member.pos, `struct ${struct.name} has two members named '${member.name}'`);
    members.set(member.name, member.type);
  }
  return members;
}

/** The task or workflow `lib.name` (or `name`) of a document, or undefined. */
export function findCallee(document: LoadedDocument, callee: string): Callee | undefined {
  const parts = callee.split('.');
  let current = document;
  for (const namespace of parts.slice(0, -1)) {
    const next = current.namespaces.get(namespace);
    if (!next) return undefined;
    current = next;
  }
  const name = parts[parts.length - 1]!;
  const task = current.doc.tasks.find((t) => t.name === name);
  if (task) return { kind: 'task', task, in: current };
  // A document's workflow is called by its name, through the namespace of its import.
  if (current !== document && current.doc.workflow?.name === name) return { kind: 'workflow', workflow: current.doc.workflow, in: current };
  return undefined;
}

const dirOf = (path: string): string => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const joinPath = (dir: string, rel: string): string => (rel.startsWith('/') ? rel : dir === '' ? rel : `${dir}/${rel}`);

/** `a/./b/../c.wdl` as `a/c.wdl`; a path that leaves the dependencies' root keeps its `..` and is not found. */
function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.replace(/^\/+/, '').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}
