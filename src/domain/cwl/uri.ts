import { containsExpression } from './expressions/scanner.js';

/**
 * URI rules of schema-salad as CWL uses them: how a relative reference, a namespace prefix
 * (`edam:format_2330`) and a scoped identifier (`inp` inside `#main` is `#main/inp`) become absolute
 * URIs, and how cwltool shortens them back (`shortname`). Pure string work over WHATWG URLs.
 */

/**
 * Whether a string holds an expression, where no URI rule applies. The scanner's `containsExpression`
 * as a plain boolean: its type guard would narrow a string to `never` where it is false.
 */
export const holdsExpression = (text: string): boolean => containsExpression(text);

/** Prefixes every CWL document knows without declaring them. */
export const CWL_NAMESPACE = 'https://w3id.org/cwl/cwl#';
export const SALAD_NAMESPACE = 'https://w3id.org/cwl/salad#';
export const DEFAULT_NAMESPACES: Readonly<Record<string, string>> = {
  cwl: CWL_NAMESPACE,
  sld: SALAD_NAMESPACE,
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
};

/**
 * Schemes a reference may start with to be absolute already. Anything else before a colon is a
 * relative path (`colon:test.cwl` is a file name), as schema-salad only treats the schemes its
 * fetcher supports as absolute. `gdflow:` names an item of the account's data store
 * (`gdflow:cwl/inputs/<hash>/reads.fq`): the locations `gdflow cwl run` gives the server.
 */
const ABSOLUTE_SCHEMES = new Set(['file', 'http', 'https', 'ftp', 'mailto', 'urn', 'data', 's3', 'gs', 'keep', 'arv', 'gdflow']);

const schemeOf = (ref: string): string | undefined => /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(ref)?.[1]?.toLowerCase();

export const isAbsoluteUri = (ref: string): boolean => {
  const scheme = schemeOf(ref);
  return scheme !== undefined && ABSOLUTE_SCHEMES.has(scheme);
};

/** `prefix:rest` with a declared prefix becomes the namespace URI + rest; anything else is unchanged. */
export function expandPrefix(ref: string, namespaces: Readonly<Record<string, string>>): string {
  const colon = ref.indexOf(':');
  if (colon <= 0) return ref;
  const ns = namespaces[ref.slice(0, colon)] ?? DEFAULT_NAMESPACES[ref.slice(0, colon)];
  return ns === undefined ? ref : ns + ref.slice(colon + 1);
}

/**
 * A reference made absolute against `base` (schema-salad's `expand_url` without scoping):
 * expressions and blank nodes (`_:…`) stay, prefixes expand, absolute URIs stay, the rest is joined
 * to the base as a relative URI reference (`#frag` keeps the base document).
 */
export function resolveReference(ref: string, base: string, namespaces: Readonly<Record<string, string>> = {}): string {
  if (holdsExpression(ref) || ref.startsWith('_:')) return ref;
  const expanded = expandPrefix(ref, namespaces);
  if (isAbsoluteUri(expanded)) return expanded;
  // A leading "./" stops `name:with:colons` from parsing as a scheme.
  const relative = schemeOf(expanded) !== undefined ? `./${expanded}` : expanded;
  try {
    return new URL(relative, base).href;
  } catch {
    return expanded;
  }
}

/**
 * An identifier made absolute within `scope` (schema-salad's `expand_url(scoped_id=True)`): a plain
 * name is appended to the scope's fragment (`inp` in `f.cwl#main` is `f.cwl#main/inp`, in `f.cwl` it
 * is `f.cwl#inp`); a name with a fragment or a scheme is resolved as a reference.
 */
export function scopedId(id: string, scope: string, namespaces: Readonly<Record<string, string>> = {}): string {
  const expanded = expandPrefix(id, namespaces);
  if (expanded.includes('#') || isAbsoluteUri(expanded) || id.startsWith('_:')) return resolveReference(id, scope, namespaces);
  const [document, fragment] = splitFragment(scope);
  return `${document}#${fragment ? `${fragment}/${expanded}` : expanded}`;
}

/** `a#b` -> [`a`, `b`]; no `#` -> [uri, undefined]. */
export function splitFragment(uri: string): [string, string | undefined] {
  const hash = uri.indexOf('#');
  return hash < 0 ? [uri, undefined] : [uri.slice(0, hash), uri.slice(hash + 1)];
}

/** cwltool's `shortname`: the last segment of the fragment, or else of the path. */
export function shortname(uri: string): string {
  const [document, fragment] = splitFragment(uri);
  if (fragment) return fragment.split('/').pop() ?? fragment;
  const path = document.replace(/^[a-z][a-z0-9+.-]*:(\/\/[^/]*)?/i, '');
  return path.split('/').filter(Boolean).pop() ?? path;
}

/**
 * The candidates schema-salad tries for a scoped reference (`source`, `outputSource`, `scatter`,
 * `type`): drop `refScope` segments of the referring node's fragment, then try the name in that
 * scope and each enclosing one. `step1/out` referenced from `f#main/out` (refScope 1) tries
 * `f#main/step1/out`, then `f#step1/out`.
 */
export function scopedCandidates(name: string, referrer: string, refScope: number): string[] {
  const [document, fragment] = splitFragment(referrer);
  const segments = fragment ? fragment.split('/') : [];
  segments.splice(Math.max(0, segments.length - refScope));
  const tried: string[] = [];
  for (;;) {
    tried.push(`${document}#${[...segments, name].join('/')}`);
    if (segments.length === 0) return tried;
    segments.pop();
  }
}

/** A local path (absolute or relative) as a URI reference: characters special in URIs escaped. */
export function pathToReference(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%3A/gi, ':'))
    .join('/');
}

/** The last path segment of a URI, percent-decoded (a File's basename). */
export function basenameOfUri(uri: string): string {
  const [document] = splitFragment(uri);
  const path = document.replace(/[?].*$/, '');
  const segment = path.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
