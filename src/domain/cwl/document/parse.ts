import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { exactInteger } from '../../../contract/exact-json.js';
import { CwlValidationError, type SourcePosition } from '../errors.js';
import { setChildPosition, setPosition } from './positions.js';

/**
 * Parses the text of a YAML or JSON document (JSON is YAML) into plain JSON values, recording the
 * line and column of every object, key, array and item (positions.ts). A syntax error becomes a
 * CwlValidationError at its place.
 */
export function parseYaml(text: string, uri: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, intAsBigInt: true });
  if (doc.errors.length > 0) {
    throw new CwlValidationError(
      doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        return { message: `YAML: ${firstLine(e.message)}`, at: { uri, line: pos.line, column: pos.col } };
      }),
    );
  }
  return new Converter(doc, lineCounter, uri).convert(doc.contents);
}

const firstLine = (message: string): string => message.split('\n')[0] ?? message;

/**
 * Aliases are expanded, so a document of nested aliases could grow without bound ("billion
 * laughs"); beyond this many nodes it is refused.
 */
const MAX_NODES = 1_000_000;

/** Deeper nesting than any CWL document needs would only exhaust the stack of the passes that follow. */
const MAX_DEPTH = 500;

class Converter {
  private nodes = 0;
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly uri: string,
  ) {}

  private at(offset: number | undefined): SourcePosition {
    const pos = this.lines.linePos(offset ?? 0);
    return { uri: this.uri, line: pos.line, column: pos.col };
  }

  convert(node: unknown, depth = 0): unknown {
    if (++this.nodes > MAX_NODES) {
      throw new CwlValidationError([{ message: `document expands to more than ${MAX_NODES} nodes (YAML aliases)`, at: this.at(0) }]);
    }
    if (depth > MAX_DEPTH) {
      throw new CwlValidationError([{ message: `document nests deeper than ${MAX_DEPTH} levels`, at: this.at((node as YamlNode).range?.[0]) }]);
    }
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.convert(node.resolve(this.doc), depth + 1);
    if (isScalar(node)) return scalarValue(node.value);
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      setPosition(out, this.at((node as YamlNode).range?.[0]));
      for (const pair of node.items) {
        const keyNode = pair.key;
        const key = isScalar(keyNode) ? String(keyNode.value) : String(this.convert(keyNode));
        const keyAt = this.at(isScalar(keyNode) ? keyNode.range?.[0] : (node as YamlNode).range?.[0]);
        out[key] = this.convert(pair.value, depth + 1);
        setChildPosition(out, key, keyAt);
      }
      return out;
    }
    if (isSeq(node)) {
      const out: unknown[] = [];
      setPosition(out, this.at((node as YamlNode).range?.[0]));
      node.items.forEach((item, index) => {
        out.push(this.convert(item, depth + 1));
        setChildPosition(out, index, this.at((item as YamlNode | null)?.range?.[0] ?? (node as YamlNode).range?.[0]));
      });
      return out;
    }
    return null;
  }
}

/**
 * YAML scalars as JSON values (numbers beyond JSON's range and other exotic tags become strings). Integers are read
 * as bigints and kept so only when a double cannot hold them (contract/exact-json.ts): `4200000000000000000000000000000000000000000`
 * stays those digits, as in the reference runner.
 */
function scalarValue(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return exactInteger(value);
  if (value instanceof Date) return value.toISOString();
  // !!binary: the base64 text it was written as; any other tag's value as JSON, never "[object Object]".
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return JSON.stringify(value) ?? typeof value;
}
