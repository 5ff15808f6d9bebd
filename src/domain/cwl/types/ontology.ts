import type { DocumentSource } from '../document/source.js';
import type { Diagnostics } from '../errors.js';
import type { FormatOntology } from './format.js';

const RDFS_SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';
const OWL_EQUIVALENT = 'http://www.w3.org/2002/07/owl#equivalentClass';

/**
 * The part of format ontologies (a document's `$schemas`: EDAM's RDF/XML, Turtle files) that
 * format checks need: `rdfs:subClassOf` and `owl:equivalentClass` between classes. A format matches
 * an expected one when it is the same, a subclass (transitively), or equivalent, as cwltool's
 * `formatSubclassOf` decides. Only those two predicates are read, from the common shapes of both
 * syntaxes (`rdf:about` elements with `rdf:resource` children; `S P O ; P O .` statements); other
 * RDF is ignored.
 */
export class FormatGraph implements FormatOntology {
  private readonly parents = new Map<string, Set<string>>();
  private readonly equivalents = new Map<string, Set<string>>();

  add(subject: string, predicate: string, object: string): void {
    if (predicate === RDFS_SUBCLASS) link(this.parents, subject, object);
    if (predicate === OWL_EQUIVALENT) {
      link(this.equivalents, subject, object);
      link(this.equivalents, object, subject);
    }
  }

  isSubclassOf(format: string, of: string): boolean {
    const seen = new Set<string>();
    const pending = [format];
    while (pending.length > 0) {
      const current = pending.pop()!;
      if (current === of) return true;
      if (seen.has(current)) continue;
      seen.add(current);
      pending.push(...(this.parents.get(current) ?? []), ...(this.equivalents.get(current) ?? []));
    }
    return false;
  }

  /** Reads RDF/XML (text starting with `<`) or Turtle. */
  read(text: string): void {
    if (text.trimStart().startsWith('<')) readRdfXml(text, this);
    else readTurtle(text, this);
  }
}

const link = (map: Map<string, Set<string>>, from: string, to: string): void => {
  map.set(from, (map.get(from) ?? new Set()).add(to));
};

/** The ontologies of `schemas` through `source`; one that cannot be read is a warning, as cwltool warns. */
export async function loadFormatOntology(schemas: readonly string[], source: DocumentSource, diagnostics?: Diagnostics): Promise<FormatGraph> {
  const graph = new FormatGraph();
  for (const uri of schemas) {
    try {
      graph.read(await source.read(uri));
    } catch (error) {
      diagnostics?.warn(`cannot read the ontology ${uri}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return graph;
}

function readRdfXml(text: string, graph: FormatGraph): void {
  const entities = new Map<string, string>();
  for (const m of text.matchAll(/<!ENTITY\s+([\w.-]+)\s+["']([^"']*)["']\s*>/g)) entities.set(m[1]!, m[2]!);
  const expand = (value: string): string => value.replace(/&([\w.-]+);/g, (all, name: string) => entities.get(name) ?? all);
  const body = text.replace(/<!DOCTYPE[\s\S]*?\]>/, '').replace(/<!--[\s\S]*?-->/g, '');
  const subjects: (string | undefined)[] = [];
  for (const tag of body.matchAll(/<(\/?)([\w:.-]+)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g)) {
    const [, closing, name, attributes = '', selfClosing] = tag;
    if (closing) {
      subjects.pop();
      continue;
    }
    const about = /rdf:about\s*=\s*["']([^"']*)["']/.exec(attributes)?.[1];
    const resource = /rdf:resource\s*=\s*["']([^"']*)["']/.exec(attributes)?.[1];
    const subject = subjects.findLast((s) => s !== undefined);
    if (resource !== undefined && subject !== undefined) {
      if (name === 'rdfs:subClassOf') graph.add(subject, RDFS_SUBCLASS, expand(resource));
      if (name === 'owl:equivalentClass') graph.add(subject, OWL_EQUIVALENT, expand(resource));
    }
    if (!selfClosing) subjects.push(about === undefined ? undefined : expand(about));
  }
}

function readTurtle(text: string, graph: FormatGraph): void {
  const prefixes = new Map<string, string>();
  const tokens = [...text.matchAll(/<[^>]*>|"(?:[^"\\]|\\.)*"|#[^\n]*|[;,.](?=\s|$)|[^\s;,]+/g)].map((m) => m[0]).filter((t) => !t.startsWith('#'));
  const term = (token: string): string => {
    if (token.startsWith('<')) return token.slice(1, -1);
    if (token === 'a') return 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
    const colon = token.indexOf(':');
    return colon >= 0 && prefixes.has(token.slice(0, colon)) ? prefixes.get(token.slice(0, colon))! + token.slice(colon + 1) : token;
  };
  let statement: string[] = [];
  for (const token of tokens) {
    if (statement[0] === '@prefix' && statement.length === 3 && token === '.') {
      prefixes.set(statement[1]!.replace(/:$/, ''), term(statement[2]!));
      statement = [];
    } else if (token === '.') {
      triples(statement, term).forEach(([s, p, o]) => graph.add(s, p, o));
      statement = [];
    } else statement.push(token);
  }
}

/** `S P O ; P O , O` as triples. */
function triples(statement: readonly string[], term: (t: string) => string): [string, string, string][] {
  const [subject, ...rest] = statement;
  if (subject === undefined) return [];
  const out: [string, string, string][] = [];
  let predicate: string | undefined;
  for (const token of rest) {
    if (token === ';') predicate = undefined;
    else if (token === ',') continue;
    else if (predicate === undefined) predicate = term(token);
    else out.push([term(subject), predicate, term(token)]);
  }
  return out;
}
