/**
 * The reasons the engine can write, read from its source (src/engine, src/domain/tasks), for the check that the
 * console translates each (console/src/reasons.ts). A reason is a string or template literal where the code sets
 * one: after `reason:`, `reason =`, `why:`, `note ??=`, `when =` and `more =` (the retry reason's parts), and as
 * the reason argument of the rules' jobTo and taskTo (domain/tasks/rules/decision.ts) and of the executors'
 * notStarted, lost and ImageError. A template's `${...}`
 * becomes `{}`. A literal compared with === is a condition, not a reason. Code that writes a reason in another way
 * must be added here, or its reason goes untranslated without a test noticing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Literals found in reason positions that are not a job's or a task's reason. */
const NOT_REASONS = new Set([
  'chattr failed', // tasks-root.ts: why the tasks root could not be marked, logged at start
]);

const ANCHORS = /\b(?:reason|why)\s*(?::|=(?!=))|\bnote\s*\?\?=|\b(?:const|let)\s+(?:when|more)\s*=/g;
/** Calls that take a reason, and the index of their reason argument (-1: any argument). */
const CALLS: Record<string, number> = { jobTo: 2, taskTo: 1, notStarted: 3, lost: -1, ImageError: 0 };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return sources(join(dir, e.name));
    return e.name.endsWith('.ts') ? [join(dir, e.name)] : [];
  });
}

/** A string or template literal starting at `at` (its quote): its end, and its text with `{}` for each `${...}`. */
function literal(text: string, at: number): { end: number; pattern: string } {
  const quote = text[at];
  let pattern = '';
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      pattern += text[++i] ?? '';
    } else if (c === quote) {
      return { end: i + 1, pattern };
    } else if (quote === '`' && c === '$' && text[i + 1] === '{') {
      i = expressionEnd(text, i + 2, '}');
      pattern += '{}';
    } else pattern += c;
  }
  throw new Error(`unterminated literal at ${at}`);
}

/** Where a comment or a regular expression literal starting at `at` ends, or undefined when there is none there. */
function skipOther(text: string, at: number): number | undefined {
  if (text[at] !== '/') return undefined;
  const next = text[at + 1];
  if (next === '/') return text.indexOf('\n', at) < 0 ? text.length : text.indexOf('\n', at);
  if (next === '*') return text.indexOf('*/', at + 2) + 2;
  // A regular expression where an operand is expected (after an operator, a bracket, a comma, or `return`).
  const before = text.slice(0, at).trimEnd();
  if (!/[(,=:[!&|?{};]$|\breturn$/.test(before)) return undefined;
  let inClass = false;
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return i + 1;
  }
  return text.length;
}

/** The index of the first `stop` character (or unmatched closing bracket) at depth 0 from `from`. */
function expressionEnd(text: string, from: number, stop: string): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i = literal(text, i).end - 1;
      continue;
    }
    const skipped = skipOther(text, i);
    if (skipped !== undefined) {
      i = skipped - 1;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && stop.includes(c)) return i;
  }
  return text.length;
}

/** The literals of an expression at its own level (a ternary's branches), not those compared with === or !==. */
function literalsOf(text: string, from: number, to: number): string[] {
  const found: string[] = [];
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      const { end, pattern } = literal(text, i);
      if (depth === 0 && !/[=!]==?$/.test(text.slice(from, i).trimEnd())) found.push(pattern);
      i = end - 1;
      continue;
    }
    const skipped = skipOther(text, i);
    if (skipped !== undefined) i = skipped - 1;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
  }
  return found;
}

/** The source without its comments (blanked, so that indexes stay), where "reason: ..." in prose would be taken for code. */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      const { end } = literal(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    const skipped = skipOther(text, i);
    if (skipped === undefined) {
      out += c;
      i++;
      continue;
    }
    const part = text.slice(i, skipped);
    out += text[i + 1] === '/' || text[i + 1] === '*' ? part.replace(/[^\n]/g, ' ') : part;
    i = skipped;
  }
  return out;
}

/** The arguments of a call whose `(` ends at `open`, as [start, end) ranges. */
function callArguments(text: string, open: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let start = open; ;) {
    const end = expressionEnd(text, start, ',');
    ranges.push([start, end]);
    if (text[end] !== ',') return ranges;
    start = end + 1;
  }
}

/** Every reason the engine's source can write, as a pattern with `{}` for each value, and the files it is in. */
export function engineReasons(root: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of [...sources(join(root, 'src', 'engine')), ...sources(join(root, 'src', 'domain', 'tasks'))]) {
    const text = withoutComments(readFileSync(file, 'utf8'));
    const add = (pattern: string) => {
      if (pattern === '' || NOT_REASONS.has(pattern)) return;
      found.set(pattern, [...new Set([...(found.get(pattern) ?? []), relative(root, file)])]);
    };
    for (const m of text.matchAll(ANCHORS)) {
      const start = m.index + m[0].length;
      literalsOf(text, start, expressionEnd(text, start, ',;')).forEach(add);
    }
    for (const m of text.matchAll(new RegExp(`\\b(${Object.keys(CALLS).join('|')})\\(`, 'g'))) {
      const index = CALLS[m[1]!]!;
      const args = callArguments(text, m.index + m[0].length);
      for (const [from, to] of index < 0 ? args : args.slice(index, index + 1)) literalsOf(text, from, to).forEach(add);
    }
  }
  return found;
}
