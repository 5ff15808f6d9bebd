import { CwlValidationError, Diagnostics, type CwlIssue, type SourcePosition } from '../errors.js';
import type { CwlProcess, CwlType, CwlVersion } from '../model.js';
import type { NormalizeContext } from '../normalize/context.js';
import { checkFeatureRequirements } from '../normalize/features.js';
import { normalizeProcess } from '../normalize/process.js';
import { shortname, splitFragment } from '../uri.js';
import { expandDirectives, type DirectiveReader } from './directives.js';
import { resolveIdentifiers, type IdentifierContext } from './identifiers.js';
import { checkVersion, readMetadata, type DocumentMetadata } from './metadata.js';
import { parseYaml } from './parse.js';
import { positionOf } from './positions.js';
import type { DocumentSource } from './source.js';

/** A loaded CWL document: the selected process, with everything it runs loaded and checked. */
export interface LoadedDocument {
  readonly process: CwlProcess;
  /** Problems that do not stop the load (unknown hints, ignored fields, undeclared prefixes). */
  readonly warnings: readonly CwlIssue[];
  /** Every file read, in order: documents, `$import`s, `$include`s, `run` targets. */
  readonly files: readonly string[];
  /**
   * Every process document read (the loaded one first, then those its `run`s name), as the loader saw them before
   * normalization: directives expanded, identifiers absolute, map forms as lists. packDocument makes one document of them.
   */
  readonly documents: readonly ResolvedDocument[];
}

/** A process document with its directives expanded and its identifiers resolved (schema-salad's resolved form). */
export interface ResolvedDocument extends DocumentMetadata {
  readonly uri: string;
}

/**
 * Loads the process at `uri` (an absolute URI; a fragment selects a `$graph` entry, `#main`
 * otherwise) and every document it runs, as one CwlValidationError listing every problem found.
 * Every process of every document read is checked, as cwltool validates whole documents.
 */
export async function loadDocument(uri: string, source: DocumentSource): Promise<LoadedDocument> {
  const session = new LoadSession(source);
  const [document] = splitFragment(uri);
  await session.prepare(document, undefined);
  const process = session.processAt(uri, undefined);
  session.checkAll();
  if (process) checkFeatureRequirements(process, session.diagnostics);
  session.diagnostics.throwIfErrors();
  if (!process) throw new CwlValidationError([{ message: `no process loaded from ${uri}` }]);
  return { process, warnings: session.diagnostics.warnings, files: session.files, documents: session.documents() };
}

type Json = Record<string, unknown>;

type PreparedDocument = ResolvedDocument;

/** One load: the documents read so far, the identifiers they define, the processes normalized. */
class LoadSession implements DirectiveReader {
  readonly diagnostics = new Diagnostics();
  readonly files: string[] = [];
  private readonly texts = new Map<string, Promise<string>>();
  private readonly prepared = new Map<string, PreparedDocument | null>();
  private readonly index = new Map<string, object>();
  private readonly namedTypes = new Map<string, CwlType | null>();
  /** Normalized processes by id; `null` while one is being normalized (a process that runs itself). */
  private readonly processes = new Map<string, CwlProcess | null>();
  /** Where each process node comes from, and the version its parent had (for embedded ones). */
  private readonly origins = new WeakMap<object, { document: PreparedDocument; version: CwlVersion; topLevel: boolean }>();

  constructor(private readonly source: DocumentSource) {}

  text(uri: string): Promise<string> {
    let text = this.texts.get(uri);
    if (!text) {
      this.files.push(uri);
      text = this.source.read(uri);
      this.texts.set(uri, text);
    }
    return text;
  }

  async document(uri: string): Promise<unknown> {
    return parseYaml(await this.text(uri), uri);
  }

  /**
   * Reads, expands and resolves the document at `uri`, then prepares every document its `run`s
   * name (taking its version when they declare none). A document is prepared once; one that is
   * being prepared when named again (a cycle between files) is not waited for.
   */
  async prepare(uri: string, inherited: CwlVersion | undefined, at?: SourcePosition): Promise<void> {
    if (this.prepared.has(uri)) return;
    this.prepared.set(uri, null);
    let parsed: unknown;
    try {
      parsed = await this.document(uri);
    } catch (error) {
      if (error instanceof CwlValidationError) error.issues.forEach((i) => this.diagnostics.error(i.message, i.at));
      else this.diagnostics.error(`cannot read ${uri}: ${error instanceof Error ? error.message : String(error)}`, at);
      return;
    }
    const expanded = await expandDirectives(parsed, uri, this, this.diagnostics);
    const metadata = readMetadata(expanded, uri, inherited, this.diagnostics);
    if (!metadata) return;
    const context: IdentifierContext = { namespaces: metadata.namespaces, diagnostics: this.diagnostics, index: this.index, runReferences: [] };
    const processes = metadata.processes.map((node) => resolveIdentifiers(node, metadata.base, context) as Json);
    const document: PreparedDocument = { ...metadata, uri, processes };
    for (const node of processes) this.origins.set(node, { document, version: metadata.version, topLevel: true });
    this.prepared.set(uri, document);
    for (const reference of context.runReferences) {
      const [target] = splitFragment(reference.uri);
      if (target !== uri) await this.prepare(target, metadata.version, reference.at);
    }
  }

  /** The process a `run` (or the loaded URI) names, normalized once. */
  processAt(uri: string, at: SourcePosition | undefined): CwlProcess | undefined {
    const [documentUri, fragment] = splitFragment(uri);
    const document = this.prepared.get(documentUri);
    if (!document) return undefined; // its problem is reported already
    const node = fragment === undefined ? this.mainProcess(document, at) : this.index.get(uri);
    if (!node || !this.origins.has(node)) {
      if (fragment !== undefined) this.diagnostics.error(`${shortname(documentUri)} has no process #${fragment} (it has: ${this.processNames(document)})`, at);
      return undefined;
    }
    return this.normalize(node as Json);
  }

  /** The documents prepared, in the order they were first named. */
  documents(): ResolvedDocument[] {
    return [...this.prepared.values()].filter((d): d is PreparedDocument => d !== null);
  }

  /** Checks every process of every document read (cwltool validates whole documents). */
  checkAll(): void {
    for (const document of this.prepared.values()) document?.processes.forEach((node) => this.normalize(node));
  }

  private mainProcess(document: PreparedDocument, at: SourcePosition | undefined): Json | undefined {
    if (document.processes.length === 1) return document.processes[0];
    const main = document.processes.find((p) => p.id === `${document.uri}#main`);
    if (!main) this.diagnostics.error(`${shortname(document.uri)} holds several processes; name one (${this.processNames(document)})`, at);
    return main;
  }

  private processNames(document: PreparedDocument): string {
    return document.processes.map((p) => `#${splitFragment(String(p.id))[1] ?? ''}`).join(', ');
  }

  private normalize(node: Json): CwlProcess | undefined {
    const id = node.id as string;
    const known = this.processes.get(id);
    if (known !== undefined) {
      if (known === null) this.diagnostics.error(`process ${id} runs itself (recursive workflows are not allowed)`, positionOf(node));
      return known ?? undefined;
    }
    const origin = this.origins.get(node)!;
    const version = node.cwlVersion === undefined ? origin.version : checkVersion(node.cwlVersion, this.diagnostics, positionOf(node, 'cwlVersion'));
    if (!version) return undefined;
    this.processes.set(id, null);
    const process = normalizeProcess(node, this.context(origin.document, version), origin.topLevel);
    if (process) this.processes.set(id, process);
    else this.processes.delete(id);
    return process;
  }

  private context(document: PreparedDocument, version: CwlVersion): NormalizeContext {
    return {
      diagnostics: this.diagnostics,
      version,
      namespaces: document.namespaces,
      schemas: document.schemas,
      index: this.index,
      namedTypes: this.namedTypes,
      runProcess: (uri, at) => this.processAt(uri, at),
      embeddedProcess: (node) => {
        this.origins.set(node, { document, version, topLevel: false });
        return this.normalize(node);
      },
    };
  }
}
