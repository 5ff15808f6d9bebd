import type { TestResult } from './run-test.js';
import type { NumberedTest } from './select.js';
import type { Status } from './verdict.js';

/** What the driver prints: a line per test as it ends, the reasons of failures, the tags' tallies, the closing line. */

export interface Finished {
  entry: NumberedTest;
  result: TestResult;
}

export interface Tally {
  total: number;
  passed: number;
  /** Failures, timeouts included (as cwltest counts them). */
  failed: number;
  timedOut: number;
  unsupported: number;
}

/** `  12 PASS          1.3 s  cl_basic_generation`, and for a failure its reason and the command, indented. */
export function testLine(finished: Finished, of: number): string {
  const { entry, result } = finished;
  const width = String(of).length;
  const head = `${String(entry.number).padStart(width)} ${result.status.padEnd(11)} ${result.outcome.seconds.toFixed(1).padStart(6)} s  ${entry.test.id}`;
  if (result.status === 'PASS' || result.status === 'UNSUPPORTED') return head;
  const lines = [head, ...result.message.split('\n'), `command: ${shellWords(result.command)}`];
  const stderrTail = lastLines(result.outcome.stderr, 6);
  if (stderrTail.length > 0 && result.mismatch === undefined) lines.push('stderr (last lines):', ...stderrTail.map((line) => `  ${line}`));
  return lines.map((line, i) => (i === 0 ? line : `      ${line}`)).join('\n');
}

/** Tallies per tag, plus cwltest's computed tag `all` (every test run). */
export function tallyByTag(finished: Finished[]): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  for (const { entry, result } of finished) {
    for (const tag of [...entry.test.tags, 'all']) {
      const tally = tallies.get(tag) ?? { total: 0, passed: 0, failed: 0, timedOut: 0, unsupported: 0 };
      count(tally, result.status);
      tallies.set(tag, tally);
    }
  }
  return tallies;
}

export function tally(finished: Finished[]): Tally {
  const total: Tally = { total: 0, passed: 0, failed: 0, timedOut: 0, unsupported: 0 };
  for (const { result } of finished) count(total, result.status);
  return total;
}

function count(tally: Tally, status: Status): void {
  tally.total += 1;
  if (status === 'PASS') tally.passed += 1;
  else if (status === 'UNSUPPORTED') tally.unsupported += 1;
  else {
    tally.failed += 1;
    if (status === 'TIMEOUT') tally.timedOut += 1;
  }
}

/** cwltest's percentage: passed over run, rounded down (so 99.7 % is not shown as 100 %). */
export function percent(tally: Tally): number {
  return tally.total === 0 ? 0 : Math.floor((tally.passed / tally.total) * 100);
}

/** The per-tag table: `all` and `required` first, then the others by name. */
export function tagTable(tallies: Map<string, Tally>): string {
  const order = [...tallies.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const width = Math.max(...order.map((tag) => tag.length), 3);
  const rows = order.map((tag) => {
    const t = tallies.get(tag)!;
    const failed = t.failed > 0 ? `${t.failed} failed${t.timedOut > 0 ? ` (${t.timedOut} timed out)` : ''}` : '';
    const extra = [failed, t.unsupported > 0 ? `${t.unsupported} unsupported` : ''].filter(Boolean).join(', ');
    return `${tag.padEnd(width)}  ${`${t.passed}/${t.total}`.padStart(7)}  ${`${percent(t)} %`.padStart(5)}${extra ? `  ${extra}` : ''}`;
  });
  return [`${'tag'.padEnd(width)}  ${'passed'.padStart(7)}`, ...rows].join('\n');
}

function rank(tag: string): number {
  return tag === 'all' ? 0 : tag === 'required' ? 1 : 2;
}

/** The closing line, exactly `N passed, F failed, U unsupported` (timeouts are failures). */
export function closingLine(total: Tally): string {
  return `${total.passed} passed, ${total.failed} failed, ${total.unsupported} unsupported`;
}

export function shellWords(words: string[]): string {
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function lastLines(text: string, n: number): string[] {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0)
    .slice(-n)
    .map((line) => (line.length > 300 ? `${line.slice(0, 300)}...` : line));
}
