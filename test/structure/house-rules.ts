/**
 * The rules of the house (README, "Layout"), as functions over an import graph (import-graph.ts) that return what
 * breaks them: one sentence per offending import, so that a failure says which file to change.
 */
import type { ImportGraph } from './import-graph.js';

/**
 * The parts of src/ from the top down. A file imports files of its own part, or of a part in a tier below its own;
 * never one above, and never another part of its own tier (parts side by side do not know each other).
 */
export const TIERS: ReadonlyArray<readonly string[]> = [
  // The commands, and the package's entry (which re-exports the SDK).
  ['cli', 'index.ts'],
  // `gdflow demo`: a server and the SDK together.
  ['demo'],
  // The TypeScript SDK (further limited by CLIENT_MAY_IMPORT).
  ['client'],
  // The HTTP server: app, routes, signature checks; start.ts wires the store, the engine and the domain together.
  ['server'],
  // Layered settings, read and checked once, handed down as values.
  ['config'],
  // The worker: scheduler, job runner, executors. Its public entry is engine/index.ts.
  ['engine'],
  // Names, definitions, graphs, templates, task rules: plain functions over plain data.
  ['domain'],
  // The two things the domain keeps: the database (store/) and the users' files (data/).
  ['store', 'data'],
  // Leaves used at every level: the wire's schemas and vocabulary, request signing, metrics, ids, the package root.
  ['contract', 'signing', 'metrics', 'ids.ts', 'package-root.ts'],
];

/** The SDK is published alone (`gdflow/client`): it may not pull the server, the engine or the store into a user's bundle. */
export const CLIENT_MAY_IMPORT: readonly string[] = ['client/', 'contract/', 'signing/', 'data/names.ts'];

/** Packages the lower layers never import: the domain and the store know nothing of HTTP. */
export const FORBIDDEN_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  domain: ['fastify'],
  store: ['fastify'],
  data: ['fastify'],
  contract: ['fastify'],
};

/** The part of src/ a file belongs to: its top folder, or the file itself at the top. */
export const partOf = (file: string): string => file.split('/')[0]!;

function tierOf(part: string): number {
  const tier = TIERS.findIndex((parts) => parts.includes(part));
  if (tier < 0) throw new Error(`src/${part} is in no tier of test/structure/house-rules.ts: place it (and say where in README's layout)`);
  return tier;
}

/** Parts of src/ that are in no tier. */
export function unplacedParts(graph: ImportGraph): string[] {
  return [...new Set([...graph.keys()].map(partOf))].filter((part) => !TIERS.some((parts) => parts.includes(part))).sort();
}

/** The import circles: every strongly connected set of two or more files (or a file importing itself), sorted. */
export function importCircles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so that a long chain of imports cannot exhaust the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const targets = (file: string) => (graph.get(file) ?? []).filter((e) => !e.external && graph.has(e.to)).map((e) => e.to);
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ file: string; pending: string[] }> = [];
    const enter = (file: string) => {
      index.set(file, next);
      low.set(file, next++);
      stack.push(file);
      onStack.add(file);
      work.push({ file, pending: targets(file) });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const to = frame.pending.pop();
      if (to !== undefined) {
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== frame.file);
      if (members.length > 1 || targets(frame.file).includes(frame.file)) circles.push(members.sort());
    }
  }
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Imports that run up the tiers, or sideways between parts of one tier. */
export function upwardImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, edges] of graph) {
    const from = partOf(file);
    for (const edge of edges) {
      if (edge.external) continue;
      const to = partOf(edge.to);
      if (to === from) continue;
      const [a, b] = [tierOf(from), tierOf(to)];
      if (b < a) found.push(`${file} -> ${edge.to} (${from} is below ${to})`);
      else if (b === a) found.push(`${file} -> ${edge.to} (${from} and ${to} are side by side)`);
    }
  }
  return found.sort();
}

/** The other rules: the SDK's imports, no route importing the app, the server entering the engine by its front door only. */
export function otherViolations(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, edges] of graph) {
    const part = partOf(file);
    for (const edge of edges) {
      if (edge.external) {
        if (FORBIDDEN_PACKAGES[part]?.includes(edge.to)) found.push(`${file} imports ${edge.to}, which ${part}/ never does`);
        continue;
      }
      if (part === 'client' && !CLIENT_MAY_IMPORT.some((allowed) => edge.to === allowed || (allowed.endsWith('/') && edge.to.startsWith(allowed)))) {
        found.push(`${file} -> ${edge.to} (the SDK imports only ${CLIENT_MAY_IMPORT.join(', ')})`);
      }
      if (file.startsWith('server/routes/') && edge.to === 'server/app.ts') {
        found.push(`${file} -> ${edge.to} (routes get what they need from the request and their context, never from the app)`);
      }
      if (part === 'server' && partOf(edge.to) === 'engine' && edge.to !== 'engine/index.ts') {
        found.push(`${file} -> ${edge.to} (the server uses the engine through engine/index.ts only)`);
      }
    }
  }
  return found.sort();
}
