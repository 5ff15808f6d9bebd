/** String interpolation: a lone expression's raw value, text around expressions, JSON written as the reference runner writes it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateExpressionSync, interpolationText, parseTemplate, type ExpressionContext, type Json } from '../../../src/domain/cwl/expressions/index.js';

const context: ExpressionContext = {
  inputs: { n: 3, ratio: 0.25, ok: true, none: null, name: 'sample', list: [1, 'two', null], record: { b: [1, 2], a: 'é' } },
  self: null,
  runtime: { outdir: '/out' },
};
const value = (text: Json, trimWhitespace?: boolean): Json => evaluateExpressionSync(text, context, { trimWhitespace });

describe('string interpolation', () => {
  it('gives the raw value of a string that is one expression, whitespace around it aside', () => {
    assert.deepEqual(value('$(inputs.record)'), { b: [1, 2], a: 'é' });
    assert.equal(value('  $(inputs.n)\n'), 3);
    assert.equal(value('$(inputs.none)'), null);
    assert.equal(parseTemplate('$(inputs.n)').whole, true);
    assert.equal(parseTemplate('$(inputs.n)$(inputs.n)').whole, false);
  });

  it('writes values into the text: strings as they are, the rest as JSON with sorted members', () => {
    assert.equal(value('n=$(inputs.n) r=$(inputs.ratio) ok=$(inputs.ok) none=$(inputs.none)'), 'n=3 r=0.25 ok=true none=null');
    assert.equal(value('name: $(inputs.name)'), 'name: sample');
    assert.equal(value('list: $(inputs.list)'), 'list: [1, "two", null]');
    assert.equal(value('record: $(inputs.record)'), 'record: {"a": "\\u00e9", "b": [1, 2]}');
    assert.equal(value('$(inputs.n)$(inputs.name)'), '3sample');
    assert.equal(value('\\$(inputs.n) is $(inputs.n)'), '$(inputs.n) is 3');
  });

  it('writes integers beyond 2^53 with all their digits, as Python writes its integers', () => {
    const huge = 4200000000000000000000000000000000000000000n;
    assert.equal(interpolationText(huge), '4200000000000000000000000000000000000000000');
    assert.equal(
      interpolationText({ d: [huge, -huge], f: 4.2 }),
      '{"d": [4200000000000000000000000000000000000000000, -4200000000000000000000000000000000000000000], "f": 4.2}',
    );
  });

  it('keeps strings without expressions exactly, and keeps whitespace when asked (InitialWorkDir entries)', () => {
    assert.equal(value('  a\\\\b \\$ '), '  a\\\\b \\$ ', 'no $( or ${: no escapes, no trimming');
    assert.equal(value('$(inputs.n)\n', false), '3\n');
    assert.equal(value('$(inputs.list)\n', false), '[1, "two", null]\n');
    assert.equal(value(42), 42);
    assert.deepEqual(value(['$(inputs.n)']), ['$(inputs.n)'], 'only strings are evaluated');
  });

  it("writes JSON as Python's json.dumps does, so that files written from it have the reference checksums", () => {
    // Each expected text is what `json.dumps(value, sort_keys=True)` prints for the same value.
    assert.equal(
      interpolationText([44.4, 1e-7, 0.0001, 0.00001, 1.5e300, 1e21, -2.5, 0.1 + 0.2]),
      '[44.4, 1e-07, 0.0001, 1e-05, 1.5e+300, 1e+21, -2.5, 0.30000000000000004]',
    );
    assert.equal(interpolationText([123456789.123, 5e-324, 1.7976931348623157e308, 10, -0]), '[123456789.123, 5e-324, 1.7976931348623157e+308, 10, 0]');
    assert.equal(
      interpolationText({ ü: 1, b: [true, null], a: { z: '\u2028\u007f"\\\n\t' } }),
      '{"a": {"z": "\\u2028\\u007f\\"\\\\\\n\\t"}, "b": [true, null], "\\u00fc": 1}',
    );
    assert.equal(interpolationText('😀'), '😀', 'a string is written as it is');
    assert.equal(interpolationText(['😀']), '["\\ud83d\\ude00"]');
    assert.equal(interpolationText({}), '{}');
    assert.equal(interpolationText([]), '[]');
  });
});
