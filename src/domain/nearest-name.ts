/**
 * The known name nearest to a misspelt one, for "did you mean ...?" in refusals. Distance is counted in edits:
 * a character inserted, deleted or replaced, or two neighbours swapped (`fromats` is one edit from `formats`).
 */

/** Edits between two words (optimal string alignment distance). */
export function editDistance(a: string, b: string): number {
  // rows[i][j]: edits between the first i characters of a and the first j of b.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word` (case ignored), when it is near enough to be a likely typo: at most one edit in
 * two characters of the longer word (`stdout` for `stdin`), and at least one. Undefined when nothing is that near.
 */
export function nearestName(word: string, candidates: Iterable<string>): string | undefined {
  // Long input is no one's typo of a short name; do not spend time on it.
  if (word.length > 64) return undefined;
  const lower = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(lower, name.toLowerCase());
    const near = Math.max(1, Math.floor(Math.max(word.length, name.length) / 2));
    if (distance <= near && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/**
 * The refusal of a member an object does not take, naming it and the nearest known one:
 * `inputs.reads.fromats is not a member of an input definition; did you mean formats?`.
 * `what` names the object (`input definition`); without a near name the reason lists the known ones.
 */
export function unknownMemberReason(path: string, member: string, known: readonly string[], what: string): string {
  const shown = member.length > 60 ? `${member.slice(0, 57)}...` : member;
  const near = nearestName(member, known);
  const article = /^[aeiou]/i.test(what) ? 'an' : 'a';
  return `${path ? `${path}.` : ''}${shown} is not a member of ${article} ${what}; ${near ? `did you mean ${near}?` : `its members are ${known.join(', ')}`}`;
}
