import { FORMAT_PREFIXES } from './formats.js';

/** A process as a CWL v1.2 document of its own: the version first, then the namespaces its format terms use. */

type JsonObject = Record<string, unknown>;

/** The prefixes (`edam`, `gdflow`) of the format terms anywhere in a process, in the table's order. */
function usedPrefixes(process: unknown): string[] {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'format') for (const term of [child].flat()) if (typeof term === 'string') used.add(term.slice(0, term.indexOf(':')));
      visit(child);
    }
  };
  visit(process);
  return Object.keys(FORMAT_PREFIXES).filter((prefix) => used.has(prefix));
}

export function cwlDocument(process: JsonObject): JsonObject {
  const prefixes = usedPrefixes(process);
  const namespaces = Object.fromEntries(prefixes.map((prefix) => [prefix, FORMAT_PREFIXES[prefix as keyof typeof FORMAT_PREFIXES]]));
  return { cwlVersion: 'v1.2', ...(prefixes.length > 0 ? { $namespaces: namespaces } : {}), ...process };
}
