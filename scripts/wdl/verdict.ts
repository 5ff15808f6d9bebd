import { KNOWN_FAILURES, type KnownFailure } from './known-failures.js';

/** One test's result: its key (known-failures.ts, testKey), whether it passed, and why. */
export interface TestResult {
  readonly key: string;
  readonly ok: boolean;
  readonly why: string;
}

/**
 * The run judged against the list of known failures: a failure not in the list is a regression; a listed test that
 * passes makes the list untrue (it is to be removed from it). Either fails the run, so that the list stays exact.
 */
export interface Verdict {
  readonly passed: number;
  readonly failed: number;
  /** Failures the list explains. */
  readonly known: readonly string[];
  readonly regressions: readonly TestResult[];
  /** Listed tests that passed. */
  readonly stale: readonly string[];
}

export function judge(results: readonly TestResult[], known: Readonly<Record<string, KnownFailure>> = KNOWN_FAILURES): Verdict {
  const failures = results.filter((r) => !r.ok);
  return {
    passed: results.length - failures.length,
    failed: failures.length,
    known: failures.filter((r) => r.key in known).map((r) => r.key),
    regressions: failures.filter((r) => !(r.key in known)),
    stale: results.filter((r) => r.ok && r.key in known).map((r) => r.key),
  };
}

/** The closing lines: `N passed, F failed`, `K known failures`, then what makes the run fail, if anything. */
export function closingLines(verdict: Verdict): string[] {
  const lines = [`${verdict.passed} passed, ${verdict.failed} failed`, `${verdict.known.length} known failures (scripts/wdl/known-failures.ts)`];
  for (const r of verdict.regressions) lines.push(`REGRESSION ${r.key}: failed and is not a known failure: ${r.why}`);
  for (const key of verdict.stale) lines.push(`STALE ${key}: passed but is listed as a known failure: remove it from scripts/wdl/known-failures.ts`);
  return lines;
}

export const verdictOk = (verdict: Verdict): boolean => verdict.regressions.length === 0 && verdict.stale.length === 0;
