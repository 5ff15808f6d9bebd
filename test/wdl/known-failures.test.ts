/**
 * The spec-test driver's list of known failures (scripts/wdl/known-failures.ts): docs/wdl.md shows the same list, and
 * the driver's verdict fails a run on a failure not listed and on a listed test that passes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { KNOWN_FAILURES, knownFailuresMarkdown } from '../../scripts/wdl/known-failures.js';
import { closingLines, judge, verdictOk } from '../../scripts/wdl/verdict.js';

/** A Markdown table's rows as trimmed cells, without its separator row (Prettier may realign the columns). */
const rowsOf = (text: string): string[][] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );

describe('the WDL spec tests known to fail', () => {
  it('docs/wdl.md shows the list of scripts/wdl/known-failures.ts (regenerate: node dist/scripts/wdl/main.js --known-failures-markdown)', () => {
    const docs = readFileSync(resolve(import.meta.dirname, '..', '..', '..', 'docs', 'wdl.md'), 'utf8');
    const section = /<!-- known-failures:start -->([\s\S]*)<!-- known-failures:end -->/.exec(docs);
    assert.ok(section, 'docs/wdl.md has the known-failures markers');
    assert.deepEqual(rowsOf(section[1]!), rowsOf(knownFailuresMarkdown()));
  });

  it('every entry says why in one line', () => {
    for (const [key, { reason }] of Object.entries(KNOWN_FAILURES)) assert.ok(reason.length > 20 && !reason.includes('\n'), key);
  });

  it('a run fails on a regression and on a listed test that passes, and passes otherwise', () => {
    const known = { a: { category: 'example' as const, reason: 'the example is wrong' }, b: { category: 'dependency' as const, reason: 'no GPU' } };
    const good = judge(
      [
        { key: 'a', ok: false, why: 'x' },
        { key: 'b', ok: false, why: 'y' },
        { key: 'c', ok: true, why: 'z' },
      ],
      known,
    );
    assert.ok(verdictOk(good));
    assert.deepEqual(closingLines(good).slice(0, 2), ['1 passed, 2 failed', '2 known failures (scripts/wdl/known-failures.ts)']);
    const regression = judge([{ key: 'c', ok: false, why: 'broke' }], known);
    assert.equal(verdictOk(regression), false);
    assert.match(closingLines(regression).join('\n'), /REGRESSION c: failed and is not a known failure: broke/);
    const stale = judge([{ key: 'a', ok: true, why: 'fixed' }], known);
    assert.equal(verdictOk(stale), false);
    assert.match(closingLines(stale).join('\n'), /STALE a: passed but is listed/);
  });
});
