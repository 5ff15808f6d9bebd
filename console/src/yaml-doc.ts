/**
 * Tool documents as users edit them: YAML in the `app:` form of the GeneDock examples (examples/demo/*.yml), the
 * same the CLI reads (src/cli/documents.ts). Parse errors and the server's refusals are placed on the line they
 * concern.
 */
import { Document, isScalar, LineCounter, parseDocument, visit } from 'yaml';

/** Members the server adds to a definition it answers; left out of the document one edits (wire.md §7 ignores them). */
const READ_ONLY = ['_id', 'account', 'status', 'type', 'version', 'modified_time', 'modified_ts', 'new'];

export function toolYaml(configs: Record<string, unknown>): string {
  const app = Object.fromEntries(Object.entries(configs).filter(([key]) => !READ_ONLY.includes(key)));
  const doc = new Document({ app });
  // Lists of plain values (formats, ports) on one line, as the examples write them.
  visit(doc, {
    Seq(_, node) {
      if (node.items.every((item) => isScalar(item))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

export interface Problem {
  message: string;
  /** 1-based; undefined when the place is unknown. */
  line?: number;
  column?: number;
}

export type Parsed =
  { ok: true; definition: Record<string, unknown>; inApp: boolean; counter: LineCounter; doc: Document.Parsed } | { ok: false; problems: Problem[] };

export function parseTool(text: string): Parsed {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => ({
        message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
        line: e.linePos?.[0].line,
        column: e.linePos?.[0].col,
      })),
    };
  }
  const value = doc.toJS() as unknown;
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value)) return { ok: false, problems: [{ message: 'the document must be a mapping: a tool definition under app:', line: 1, column: 1 }] };
  const inApp = isObject(value.app);
  return { ok: true, definition: inApp ? (value.app as Record<string, unknown>) : value, inApp, counter, doc };
}

/**
 * Where in the document a server refusal points: its reason names a member (`inputs.x.formats must be ...`); the
 * deepest part of that path the document has gives the line.
 */
export function locate(parsed: Extract<Parsed, { ok: true }>, message: string): Problem {
  const match = /since ([A-Za-z_][\w-]*(?:(?:\.[\w-]+)|\[\d+\])*)/.exec(message) ?? /^([A-Za-z_][\w-]*(?:(?:\.[\w-]+)|\[\d+\])+)/.exec(message);
  if (!match) return { message };
  const path = match[1]!
    .split(/\.|\[(\d+)\]/)
    .filter((p) => p !== undefined && p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const base = parsed.inApp ? ['app'] : [];
  for (let k = path.length; k > 0; k--) {
    const node = parsed.doc.getIn([...base, ...path.slice(0, k)], true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) {
      const pos = parsed.counter.linePos(node.range[0]);
      return { message, line: pos.line, column: pos.col };
    }
  }
  return { message };
}
