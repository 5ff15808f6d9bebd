/**
 * JSON with exact integers (src/contract/exact-json.ts): what CWL values cross (documents, job objects, job outputs in
 * the store, the HTTP bodies of cwl/runs, the printed output object) keeps integers beyond 2^53 digit for digit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exactNumber, mayHoldUnsafeIntegers, parseExactJson, stringifyExactJson } from '../../src/contract/exact-json.js';

const HUGE = '4200000000000000000000000000000000000000000';

describe('parseExactJson', () => {
  it('reads integers beyond 2^53 as bigints and every other number as a number', () => {
    const value = parseExactJson(
      `{"huge": ${HUGE}, "negative": -${HUGE}, "edge": 9007199254740993, "safe": 9007199254740991, "float": 4.2, "exp": 1e400, "long": 1234567890123456.5}`,
    );
    assert.deepEqual(value, {
      huge: BigInt(HUGE),
      negative: -BigInt(HUGE),
      edge: 9007199254740993n,
      safe: 9007199254740991,
      float: 4.2,
      exp: Infinity,
      long: 1234567890123456.5,
    });
  });

  it('reads text without a run of 16 digits as JSON.parse does, and long digits inside strings as strings', () => {
    assert.equal(mayHoldUnsafeIntegers('{"a": 900719925474099}'), false);
    assert.deepEqual(parseExactJson('{"a": [1, 2.5, null, true, "x"]}'), { a: [1, 2.5, null, true, 'x'] });
    assert.deepEqual(parseExactJson('{"checksum": "sha1$1234567890123456789012345678901234567890", "n": 1}'), {
      checksum: 'sha1$1234567890123456789012345678901234567890',
      n: 1,
    });
  });

  it('takes the native path for 16 digits inside strings (ids), the exact one for every number token of 16 digits', () => {
    assert.equal(mayHoldUnsafeIntegers('{"jobs": ["69281d7a1234567890123456", "x9007199254740993"]}'), false);
    assert.deepEqual(parseExactJson('{"jobs":["69281d7a1234567890123456"]}'), { jobs: ['69281d7a1234567890123456'] });
    for (const text of [`${HUGE}`, `[1,${HUGE}]`, `{"a":${HUGE}}`, `{"a": -${HUGE}}`, `[\n${HUGE}]`, `{"a":\t-${HUGE}}`, `[ ${HUGE}]`]) {
      assert.equal(mayHoldUnsafeIntegers(text), true, text);
      const bigints = JSON.stringify(parseExactJson(text), (_key, value: unknown) => (typeof value === 'bigint' ? 'a bigint' : value));
      assert.equal(bigints.includes('"a bigint"'), true, text);
    }
  });

  it('takes the last of a repeated key and keeps __proto__ as a member, as JSON.parse does, on the exact path too', () => {
    const value = parseExactJson(`{"a": 1, "a": ${HUGE}, "__proto__": {"polluted": true}}`) as Record<string, unknown>;
    assert.equal(value.a, BigInt(HUGE));
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('throws SyntaxError for what is not JSON, on both paths', () => {
    assert.throws(() => parseExactJson('{"a": }'), SyntaxError);
    assert.throws(() => parseExactJson(`{"a": ${HUGE},}`), SyntaxError);
  });

  it('reads a number token as a number or a bigint', () => {
    assert.equal(exactNumber('42'), 42);
    assert.equal(exactNumber('-9007199254740993'), -9007199254740993n);
    assert.equal(exactNumber('1.5e300'), 1.5e300);
  });
});

describe('stringifyExactJson', () => {
  it('writes bigints as their digits, with the layout JSON.stringify gives', () => {
    const value = { huge: BigInt(HUGE), list: [1, -BigInt(HUGE), 'x'], nested: { n: 2.5 }, gone: undefined };
    assert.equal(stringifyExactJson(value), `{"huge":${HUGE},"list":[1,-${HUGE},"x"],"nested":{"n":2.5}}`);
    const plain = { list: [1, 'x'], nested: { n: 2.5 } };
    assert.equal(stringifyExactJson({ ...plain, huge: BigInt(HUGE) }, 4), JSON.stringify({ ...plain, huge: 0 }, null, 4).replace(/0\n}$/, `${HUGE}\n}`));
  });

  it('round-trips through parseExactJson', () => {
    const value = { a: [BigInt(HUGE), 9007199254740993n, 1, 0.1, 'é', null, false], b: { c: -BigInt(HUGE) } };
    assert.deepEqual(parseExactJson(stringifyExactJson(value)), value);
  });

  it('fails on a cycle as JSON.stringify does', () => {
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    assert.throws(() => stringifyExactJson(cyclic));
  });
});
