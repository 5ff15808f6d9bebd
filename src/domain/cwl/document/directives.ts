import { CwlValidationError, type Diagnostics } from '../errors.js';
import { resolveReference, splitFragment } from '../uri.js';
import { copyPositions, positionOf, setChildPosition } from './positions.js';

/**
 * schema-salad's document directives, applied before anything else reads the document:
 * - `{$import: URI}` is replaced by the document at URI (parsed, its own directives expanded);
 *   inside a list, an imported list is spliced in (`types: [{$import: types.yml}]`);
 * - `{$include: URI}` is replaced by the text of the file at URI (`expressionLib`, scripts);
 * - `{$mixin: URI, …}` is the document at URI with the other fields laid over it.
 * URIs are relative to the file that holds the directive, so an imported document that imports
 * again resolves against its own place. Every imported root remembers its URI (`importBaseOf`):
 * identifiers inside it are resolved against that file, as schema-salad resolves an imported
 * document on its own.
 */
export interface DirectiveReader {
  /** The parsed document at `uri` (cached by the caller). */
  document(uri: string): Promise<unknown>;
  text(uri: string): Promise<string>;
}

const importBases = new WeakMap<object, string>();

/** The URI of the file a node was `$import`ed from, when it is the root of an import. */
export const importBaseOf = (node: object): string | undefined => importBases.get(node);

export async function expandDirectives(value: unknown, uri: string, reader: DirectiveReader, diagnostics: Diagnostics): Promise<unknown> {
  return new DirectiveExpander(reader, diagnostics).expand(value, uri, [uri]);
}

class DirectiveExpander {
  constructor(
    private readonly reader: DirectiveReader,
    private readonly diagnostics: Diagnostics,
  ) {}

  async expand(value: unknown, base: string, chain: readonly string[]): Promise<unknown> {
    if (Array.isArray(value)) return this.expandList(value, base, chain);
    if (typeof value !== 'object' || value === null) return value;
    const node = value as Record<string, unknown>;
    for (const directive of ['$import', '$include'] as const) {
      if (!(directive in node)) continue;
      if (Object.keys(node).length !== 1) {
        this.diagnostics.error(`'${directive}' must be the only field of its object`, positionOf(node, directive));
        return null;
      }
      return directive === '$import' ? this.importDocument(node, base, chain) : this.includeText(node, base);
    }
    const out: Record<string, unknown> = {};
    if ('$mixin' in node) {
      const mixed = await this.importDocument({ $import: node.$mixin }, base, chain, positionOf(node, '$mixin'));
      if (typeof mixed === 'object' && mixed !== null && !Array.isArray(mixed)) Object.assign(out, mixed);
      else if (mixed !== null) this.diagnostics.error(`'$mixin' must name a document that is an object`, positionOf(node, '$mixin'));
    }
    copyPositions(node, out);
    for (const [key, child] of Object.entries(node)) {
      if (key === '$mixin') continue;
      out[key] = await this.expand(child, base, chain);
    }
    return out;
  }

  private async expandList(list: readonly unknown[], base: string, chain: readonly string[]): Promise<unknown[]> {
    const out: unknown[] = [];
    copyPositions(list, out);
    for (const [index, item] of list.entries()) {
      const isImport = typeof item === 'object' && item !== null && !Array.isArray(item) && '$import' in item;
      const expanded = await this.expand(item, base, chain);
      const items = isImport && Array.isArray(expanded) ? expanded : [expanded];
      for (const one of items) {
        setChildPosition(out, out.length, positionOf(list, index) ?? positionOf(one)!);
        out.push(one);
      }
    }
    return out;
  }

  private async importDocument(node: Record<string, unknown>, base: string, chain: readonly string[], at = positionOf(node, '$import')): Promise<unknown> {
    const target = this.target(node.$import, base, '$import', at);
    if (target === undefined) return null;
    if (chain.includes(target)) {
      this.diagnostics.error(`$import of ${target} imports itself (${[...chain, target].join(' -> ')})`, at);
      return null;
    }
    let parsed: unknown;
    try {
      parsed = await this.reader.document(target);
    } catch (error) {
      this.report(error, `cannot $import ${target}`, at);
      return null;
    }
    const expanded = await this.expand(parsed, target, [...chain, target]);
    for (const root of Array.isArray(expanded) ? (expanded as unknown[]) : [expanded]) {
      if (typeof root === 'object' && root !== null) importBases.set(root, target);
    }
    return expanded;
  }

  private async includeText(node: Record<string, unknown>, base: string): Promise<unknown> {
    const at = positionOf(node, '$include');
    const target = this.target(node.$include, base, '$include', at);
    if (target === undefined) return null;
    try {
      return await this.reader.text(target);
    } catch (error) {
      this.report(error, `cannot $include ${target}`, at);
      return null;
    }
  }

  private target(ref: unknown, base: string, directive: string, at: ReturnType<typeof positionOf>): string | undefined {
    if (typeof ref !== 'string' || ref === '') {
      this.diagnostics.error(`'${directive}' must be a URI (a relative path or an absolute URI)`, at);
      return undefined;
    }
    const [document, fragment] = splitFragment(resolveReference(ref, base));
    if (fragment !== undefined) {
      this.diagnostics.error(`'${directive}' of a fragment (${ref}) is not supported: name the whole file`, at);
      return undefined;
    }
    return document;
  }

  private report(error: unknown, what: string, at: ReturnType<typeof positionOf>): void {
    if (error instanceof CwlValidationError) {
      for (const issue of error.issues) this.diagnostics.error(issue.message, issue.at);
      return;
    }
    this.diagnostics.error(`${what}: ${error instanceof Error ? error.message : String(error)}`, at);
  }
}
