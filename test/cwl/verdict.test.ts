/**
 * What the conformance driver makes of a runner's exit and stdout (scripts/cwl/verdict.ts), in cwltest's order:
 * the cases the end-to-end test (driver.test.ts) does not reach with its stand-in runner.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import type { ConformanceTest } from '../../scripts/cwl/suite.js';
import { judge, type RunOutcome } from '../../scripts/cwl/verdict.js';

const test = (fields: Partial<ConformanceTest>): ConformanceTest => ({
  position: 1,
  id: 't',
  doc: '',
  tool: 'tests/t.cwl',
  job: undefined,
  output: {},
  shouldFail: false,
  tags: ['command_line_tool'],
  required: false,
  ...fields,
});
const ran = (fields: Partial<RunOutcome>): RunOutcome => ({ exitCode: 0, signal: null, timedOut: false, stdout: '', stderr: '', seconds: 1, ...fields });
const status = (t: ConformanceTest, outcome: RunOutcome) => judge(t, outcome, tmpdir()).status;

describe('verdicts', () => {
  it('takes exit 33 as unsupported before should_fail, except for required tests, where should_fail still passes', () => {
    assert.equal(status(test({ shouldFail: true }), ran({ exitCode: 33 })), 'UNSUPPORTED');
    assert.equal(status(test({ shouldFail: true, required: true }), ran({ exitCode: 33 })), 'PASS');
    assert.equal(status(test({ required: true }), ran({ exitCode: 33 })), 'FAIL');
  });

  it('passes a should_fail test whose runner was killed by a signal, and fails another', () => {
    assert.equal(status(test({ shouldFail: true }), ran({ exitCode: null, signal: 'SIGSEGV' })), 'PASS');
    const verdict = judge(test({}), ran({ exitCode: null, signal: 'SIGSEGV' }), tmpdir());
    assert.deepEqual([verdict.status, verdict.message], ['FAIL', 'the runner was ended by SIGSEGV']);
  });

  it('reads an empty stdout as {}, but not a blank line, and keeps large integers exact', () => {
    assert.equal(status(test({ output: {} }), ran({ stdout: '' })), 'PASS');
    assert.equal(status(test({ output: {} }), ran({ stdout: '\n' })), 'FAIL');
    const big = test({ output: { n: 4200000000000000000000000000000000000000000n } });
    assert.equal(status(big, ran({ stdout: '{"n": 4200000000000000000000000000000000000000000}' })), 'PASS');
    const lossy = judge(test({ output: { n: 4200000000000000000000000000000000000000000n } }), ran({ stdout: '{"n": 4.2e+42}' }), tmpdir());
    assert.equal(lossy.status, 'FAIL');
    assert.match(lossy.message, /expected: 4200000000000000000000000000000000000000000\n\s+actual: {3}4\.2e\+42/);
  });

  it('counts a timeout as such, whatever the exit', () => {
    assert.equal(status(test({ shouldFail: true }), ran({ exitCode: null, signal: 'SIGTERM', timedOut: true })), 'TIMEOUT');
  });
});
