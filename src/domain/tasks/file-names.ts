/**
 * The names a job's files get inside its working directory (`inputs/<input>/<name>`, `outputs/<output>/<name>`).
 * The planner (plan.ts) names every job's files with these functions, and so does the code gdflow embeds in an
 * exported CWL document (domain/cwl/export/), so that a tool run by another CWL runner sees the same names.
 */

/** The last part of a path. */
export const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** Keep file names shell- and filesystem-friendly; the original name stays in the data store. */
export function safeFileName(name: string, fallback: string): string {
  const base = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.-]+/, '');
  return base === '' ? fallback : base.slice(0, 200);
}

/** Give each file of a port a distinct name: `a.bam`, or `1_a.bam`, `2_a.bam` when names repeat. */
export function distinctNames(names: string[]): string[] {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return names.map((n, i) => (counts.get(n)! > 1 ? `${i + 1}_${n}` : n));
}

/** The names of an input port's files, from the names they had (a data item's, an upstream output's). */
export const inputFileNames = (names: string[]): string[] => distinctNames(names.map((name) => safeFileName(basename(name), 'input')));

/**
 * The names of an output port's files: one per name asked for (the data names its stores give), at least the
 * port's `minitems` and at least one; a file no store names is `<port>.<first format>` (`<port>_2.<format>`, ...).
 */
export function outputFileNames(port: string, formats: string[], minitems: number, requested: string[]): string[] {
  const format = formats[0] ?? 'out';
  const count = Math.max(requested.length, minitems, 1);
  const names = Array.from({ length: count }, (_, i) => {
    const target = requested[i];
    return target !== undefined ? safeFileName(basename(target), `${port}.${format}`) : `${port}${i > 0 ? `_${i + 1}` : ''}.${format}`;
  });
  return distinctNames(names);
}
