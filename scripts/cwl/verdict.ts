import { compareOutputs, type Mismatch } from './compare.js';
import { parseOutputJson, showJson } from './numbers.js';
import type { ConformanceTest } from './suite.js';

/** What cwltest's contract makes of a runner's exit and output (cwltest/utils.py, run_test_plain). */

/** The exit status by which a runner says the document needs a feature it does not support. */
export const UNSUPPORTED_FEATURE = 33;

export type Status = 'PASS' | 'FAIL' | 'UNSUPPORTED' | 'TIMEOUT';

/** How the runner's process ended. */
export interface RunOutcome {
  /** The exit status, or null when a signal ended it. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  seconds: number;
}

export interface Verdict {
  status: Status;
  /** Why it failed, in a few lines; empty for a pass. */
  message: string;
  mismatch?: Mismatch;
}

/**
 * In cwltest's order: exit 33 is "unsupported" unless the test is required (then a failure, even for a test that
 * should fail); any other non-zero exit passes a `should_fail` test and fails the rest; exit 0 fails a `should_fail`
 * test, and otherwise stdout (empty counts as `{}`) must be a JSON output object matching the expected one.
 */
export function judge(test: ConformanceTest, outcome: RunOutcome, cwd: string): Verdict {
  if (outcome.timedOut) return { status: 'TIMEOUT', message: `no answer within ${outcome.seconds.toFixed(0)} s: stopped` };
  if (outcome.exitCode !== 0) {
    if (outcome.exitCode === UNSUPPORTED_FEATURE && !test.required) return { status: 'UNSUPPORTED', message: '' };
    if (test.shouldFail) return { status: 'PASS', message: '' };
    const how = outcome.exitCode === null ? `was ended by ${outcome.signal}` : `exited ${outcome.exitCode}`;
    const why = outcome.exitCode === UNSUPPORTED_FEATURE ? ' (unsupported feature) on a required test' : '';
    return { status: 'FAIL', message: `the runner ${how}${why}` };
  }
  if (test.shouldFail) return { status: 'FAIL', message: 'the runner exited 0 on a test that should fail' };
  let actual: unknown;
  try {
    // Only an empty stdout counts as {} (cwltest: `json.loads(out) if out else {}`); a blank line is not JSON.
    actual = outcome.stdout === '' ? {} : parseOutputJson(outcome.stdout);
  } catch (error) {
    return { status: 'FAIL', message: `stdout is not a JSON output object (${(error as Error).message}): ${clip(outcome.stdout, 200)}` };
  }
  const mismatch = compareOutputs(test.output, actual, cwd);
  if (mismatch === undefined) return { status: 'PASS', message: '' };
  return { status: 'FAIL', message: describeMismatch(mismatch), mismatch };
}

/** A mismatch in three short lines: where and why, then the expected and the actual value there. */
export function describeMismatch(mismatch: Mismatch): string {
  return [
    `${mismatch.at}: ${mismatch.reason}`,
    `  expected: ${clip(showJson(mismatch.expected), 300)}`,
    `  actual:   ${clip(showJson(mismatch.actual), 300)}`,
  ].join('\n');
}

export function clip(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length)}... (${flat.length} characters)`;
}
