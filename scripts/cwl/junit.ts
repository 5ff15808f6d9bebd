import { writeFileSync } from 'node:fs';
import { tally, type Finished } from './report.js';

/**
 * The run as a JUnit XML report (`--junit-xml`), for CI systems that show test results: one `testcase` per test
 * (named by its id, its tags as the category), a `failure` with the reason for failures and timeouts, `skipped` for
 * unsupported tests, and the runner's stdout and stderr (the end of them) for every test that did not pass.
 */

/** How much of a failed test's stdout and stderr the report keeps: their ends, where the reason usually is. */
const KEPT_OUTPUT = 16 * 1024;

export function junitXml(finished: Finished[], suiteName: string, classname: string): string {
  const total = tally(finished);
  const seconds = finished.reduce((sum, { result }) => sum + result.outcome.seconds, 0);
  const cases = [...finished]
    .sort((a, b) => a.entry.number - b.entry.number)
    .map(({ entry: { test }, result }) => {
      const attributes = `name="${escape(test.id)}" classname="${escape(classname)}" file="${escape(test.tool)}" time="${result.outcome.seconds.toFixed(3)}"`;
      const properties =
        `<properties><property name="category" value="${escape(test.tags.join(', '))}"/>` + `<property name="doc" value="${escape(test.doc)}"/></properties>`;
      if (result.status === 'PASS') return `  <testcase ${attributes}>${properties}</testcase>`;
      const verdict =
        result.status === 'UNSUPPORTED'
          ? '<skipped message="Unsupported"/>'
          : `<failure message="${escape(result.status === 'TIMEOUT' ? 'Test timed out' : result.message.split('\n')[0]!)}">${escape(result.message)}</failure>`;
      const output = `<system-out>${escape(tail(result.outcome.stdout))}</system-out><system-err>${escape(tail(result.outcome.stderr))}</system-err>`;
      return `  <testcase ${attributes}>${properties}${verdict}${output}</testcase>`;
    });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<testsuites>',
    ` <testsuite name="${escape(suiteName)}" tests="${total.total}" failures="${total.failed}" skipped="${total.unsupported}" errors="0"` +
      ` time="${seconds.toFixed(3)}">`,
    ...cases,
    ' </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function writeJunitXml(file: string, finished: Finished[], suiteName: string, classname: string): void {
  writeFileSync(file, junitXml(finished, suiteName, classname));
}

function tail(text: string): string {
  return text.length <= KEPT_OUTPUT ? text : `...${text.slice(-KEPT_OUTPUT)}`;
}

/** Text as XML character data or an attribute value; characters XML 1.0 cannot hold at all are dropped. */
export function escape(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
