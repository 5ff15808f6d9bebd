/**
 * "Did you mean ...?": the known name nearest to a mistyped one. Pure functions over strings, shared by every place
 * that refuses an unknown name (the CLI's "not found" messages, unknown nodes and parameters of a run), so that all
 * of them suggest alike.
 */

/**
 * The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two neighbours each cost
 * one (`copyrads` → `copyreads` is 1, `cpoy` → `copy` is 1). Two rows of the table only: names are short.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/** How far a suggestion may be: one edit for short names, about a third of the name for longer ones. */
const tolerance = (name: string): number => Math.max(1, Math.floor(name.length / 3));

/**
 * The candidate nearest to `name`, or undefined when none is near enough to be a likely typo. Case is ignored
 * (`Copyreads` finds `copyreads`), and a candidate that starts with the name, or that the name starts with, counts
 * as near (`bwa` finds `bwa_mem`, `sample1.fastq` finds `sample1.fastq.gz`) when the shorter has 3 characters or more.
 */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const lower = candidate.toLowerCase();
    let score = editDistance(wanted, lower);
    if (score > tolerance(name)) {
      const [shorter, longer] = wanted.length <= lower.length ? [wanted, lower] : [lower, wanted];
      // A prefix match ranks after every typo-sized one, nearer the closer the lengths.
      if (shorter.length >= 3 && longer.startsWith(shorter)) score = tolerance(name) + 1 + (longer.length - shorter.length) / 1000;
      else continue;
    }
    if (!best || score < best.score) best = { candidate, score };
  }
  return best?.candidate;
}

/**
 * The refusal of a member an object does not take, naming it and the nearest known one:
 * `inputs.reads.fromats is not a member of an input definition; did you mean formats?`.
 * `what` names the object (`input definition`); without a near name the reason lists the known ones.
 */
export function unknownMemberReason(path: string, member: string, known: readonly string[], what: string): string {
  const shown = member.length > 60 ? `${member.slice(0, 57)}...` : member;
  // A member name of a megabyte is no one's typo: do not spend an edit-distance table on it.
  const near = member.length <= 64 ? nearestName(member, known) : undefined;
  const article = /^[aeiou]/i.test(what) ? 'an' : 'a';
  return `${path ? `${path}.` : ''}${shown} is not a member of ${article} ${what}; ${near ? `did you mean ${near}?` : `its members are ${known.join(', ')}`}`;
}
