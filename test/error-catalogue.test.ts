import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { COMMON_ERRORS, OPERATION_ERRORS, type OperationErrors } from '../src/server/errors.js';
import { fixturePath } from './helpers/paths.js';

/** Rows of INTERFACE.md §7: | status | code | operations | message pattern | */
function documentedErrors(): Array<{ status: number; code: string; operations: string[]; pattern: string }> {
  const text = readFileSync(fixturePath('INTERFACE.md'), 'utf8');
  const section = text.slice(text.indexOf('## 7. Errors'), text.indexOf('## 8.'));
  return section
    .split('\n')
    .filter((line) => /^\| \d{3} \|/.test(line))
    .map((line) => {
      const [status, code, operations, pattern] = line
        .split('|')
        .slice(1, 5)
        .map((c) => c.trim());
      return { status: Number(status), code: code!, operations: operations!.split(',').map((o) => o.trim()), pattern: pattern! };
    });
}

describe('error catalogue', () => {
  const rows = documentedErrors();

  it('reads the 18 rows of INTERFACE.md §7', () => {
    assert.equal(rows.length, 18);
  });

  for (const row of rows) {
    for (const operation of row.operations) {
      it(`${operation}: ${row.status} ${row.code}`, () => {
        const errors = (OPERATION_ERRORS as Record<string, OperationErrors>)[operation];
        assert.ok(errors, `operation ${operation} is in the catalogue`);
        const spec = row.status === 404 ? errors.notFound : errors.invalid;
        assert.ok(spec, `${operation} has a ${row.status} entry`);
        assert.equal(spec.status, row.status);
        assert.equal(spec.code, row.code);
        // Patterns with {reason} are kept exactly; those without (ActivateWorkflow) are the prefix.
        if (row.pattern.includes('{reason}')) assert.equal(spec.en, row.pattern);
        else assert.ok(spec.en.startsWith(row.pattern.replace(/\.$/, '')), `${spec.en} starts with ${row.pattern}`);
      });
    }
  }

  it('has a Chinese message for every entry', () => {
    const all = [...Object.values(OPERATION_ERRORS).flatMap((e: OperationErrors) => [e.invalid, e.notFound]), ...Object.values(COMMON_ERRORS)];
    for (const spec of all) {
      if (!spec) continue;
      assert.match(spec.zh, /[\u4e00-\u9fff]/, `${spec.code} has Chinese text`);
      assert.equal(spec.en.includes('{reason}'), spec.zh.includes('{reason}'), `${spec.code} en and zh agree on {reason}`);
    }
  });
});
