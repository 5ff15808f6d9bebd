import type { ConformanceTest } from './suite.js';

/**
 * Which tests run, as cwltest chooses them: the tag filters first (`--tags`, `--exclude-tags`), then the tests left
 * are numbered from 1, and `-n`/`--id` pick among them while `-N`/`--exclude-id` leave some out. A number therefore
 * means the same test as in `--list` with the same tag filters.
 */

export interface Selection {
  tags?: string[] | undefined;
  excludeTags?: string[] | undefined;
  /** Ranges such as `1-10,15`. */
  numbers?: string | undefined;
  excludeNumbers?: string | undefined;
  ids?: string[] | undefined;
  excludeIds?: string[] | undefined;
}

export interface NumberedTest {
  number: number;
  test: ConformanceTest;
}

export class SelectionError extends Error {
  override name = 'SelectionError';
}

/** The tests the tag filters keep, numbered from 1 in suite order. */
export function numberTests(tests: ConformanceTest[], selection: Selection): NumberedTest[] {
  const known = new Set(tests.flatMap((test) => test.tags));
  for (const [option, names] of [
    ['--tags', selection.tags],
    ['--exclude-tags', selection.excludeTags],
  ] as const) {
    const unknown = (names ?? []).filter((name) => !known.has(name));
    // A misspelt tag would otherwise select nothing, or exclude nothing, and look like a result.
    if (unknown.length > 0) throw new SelectionError(`${option}: no test is tagged ${unknown.join(', ')} (tags: ${[...known].sort().join(', ')})`);
  }
  return tests
    .filter((test) => selection.tags === undefined || test.tags.some((tag) => selection.tags!.includes(tag)))
    .filter((test) => !test.tags.some((tag) => selection.excludeTags?.includes(tag)))
    .map((test, index) => ({ number: index + 1, test }));
}

export function selectTests(numbered: NumberedTest[], selection: Selection): NumberedTest[] {
  const byId = new Map(numbered.map((entry) => [entry.test.id, entry.number]));
  const numbersOf = (ids: string[], option: string): number[] =>
    ids.map((id) => {
      const number = byId.get(id);
      if (number === undefined) throw new SelectionError(`${option}: no test ${id} among the ${numbered.length} tests the tag filters keep`);
      return number;
    });
  const picked = new Set<number>();
  if (selection.numbers !== undefined) for (const n of parseRanges(selection.numbers, '-n', numbered.length)) picked.add(n);
  if (selection.ids !== undefined) for (const n of numbersOf(selection.ids, '--id')) picked.add(n);
  const pickAll = selection.numbers === undefined && selection.ids === undefined;
  const dropped = new Set<number>([
    ...(selection.excludeNumbers === undefined ? [] : parseRanges(selection.excludeNumbers, '-N', numbered.length)),
    ...(selection.excludeIds === undefined ? [] : numbersOf(selection.excludeIds, '--exclude-id')),
  ]);
  return numbered.filter((entry) => (pickAll || picked.has(entry.number)) && !dropped.has(entry.number));
}

/** `1-3,7` as [1, 2, 3, 7]; each number must be a test's (1 to `count`). */
export function parseRanges(text: string, option: string, count: number): number[] {
  const numbers: number[] = [];
  for (const part of text.split(',')) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!match) throw new SelectionError(`${option}: '${part}' is neither a test number nor a range such as 3-7`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1 || last > count || first > last) throw new SelectionError(`${option}: ${part} is not within the tests 1-${count}`);
    for (let n = first; n <= last; n += 1) numbers.push(n);
  }
  return numbers;
}
