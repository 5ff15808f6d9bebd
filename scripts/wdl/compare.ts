import { readFile } from 'node:fs/promises';

/** How a test's inputs reach gdflow, and how its outputs are compared (as openwdl/wdl-tests' runners do: Files by content). */

/** An input naming a file of data/ (a value, or a Map's key) is that file's local path, under `root` (the suite's data/). */
export function mapInput(value: unknown, dataFiles: readonly string[], root: string): unknown {
  const map = (v: unknown): unknown => {
    if (typeof v === 'string' && dataFiles.includes(v)) return `${root}/${v}`;
    if (Array.isArray(v)) return v.map(map);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [map(k) as string, map(x)]));
    return v;
  };
  return map(value);
}

/** Where a test's File outputs are (`gdflow wdl run --outdir`), and the files of the suite's data/. */
export interface OutputFiles {
  /** The test's --outdir, with its trailing separator: a File output is a local path under it. */
  readonly outdir: string;
  dataFile(name: string): string | undefined;
}

/** An actual output against the expected one: a File (a local path under --outdir) by its content, or by its name. */
export async function same(actual: unknown, expected: unknown, files: OutputFiles): Promise<boolean> {
  if (typeof actual === 'string' && actual.startsWith(files.outdir)) {
    if (typeof expected !== 'string') return false;
    const content = await readFile(actual, 'utf8');
    const data = files.dataFile(expected);
    if (data !== undefined) return content === data;
    return actual.endsWith(`/${expected.split('/').pop()}`) || content === expected;
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && (await all(expected.map((e, i) => same(actual[i], e, files))));
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object') return false;
    const keys = Object.keys(expected);
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    return keys.length === Object.keys(actual).length && (await all(keys.map((k) => same(a[k], e[k], files))));
  }
  if (typeof expected === 'number' && typeof actual === 'number') return Math.abs(expected - actual) < 1e-6;
  return actual === expected;
}

const all = async (checks: Promise<boolean>[]): Promise<boolean> => (await Promise.all(checks)).every(Boolean);
