/** The retry policy's reading and arithmetic, and the call-cache key's differences (docs/tasks.md). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../src/domain/cache/key.js';
import { parseSizeMb } from '../../src/domain/tools/definition.js';
import { backoffBefore, DEFAULT_RETRY_POLICY, failureKind, nextMemory, readRetryPolicy } from '../../src/domain/tools/retry-policy.js';

describe('retry policy', () => {
  it('reads a policy over the default, and refuses what it cannot read, naming the member', () => {
    const policy = readRetryPolicy(
      { max_attempts: 4, on: ['out_of_memory'], memory_factor: 1.5, max_memory: '8g', backoff_seconds: 10 },
      'retry',
      DEFAULT_RETRY_POLICY,
      parseSizeMb,
    );
    assert.deepEqual(policy, { maxAttempts: 4, on: ['out_of_memory'], memoryFactor: 1.5, maxMemMb: 8192, backoffSeconds: 10 });
    assert.deepEqual(readRetryPolicy(null, 'retry', DEFAULT_RETRY_POLICY, parseSizeMb), DEFAULT_RETRY_POLICY);
    assert.throws(
      () => readRetryPolicy({ max_attempts: 11 }, 'retry', DEFAULT_RETRY_POLICY, parseSizeMb),
      /retry\.max_attempts must be an integer from 1 to 10/,
    );
    assert.throws(() => readRetryPolicy({ tries: 2 }, 'retry', DEFAULT_RETRY_POLICY, parseSizeMb), /retry\.tries is not a member/);
    assert.throws(() => readRetryPolicy({ on: 'exit_code' }, 'retry', DEFAULT_RETRY_POLICY, parseSizeMb), /retry\.on must be a list/);
  });

  it('names how an attempt failed', () => {
    assert.equal(failureKind('out_of_memory', 137), 'out_of_memory');
    assert.equal(failureKind('failed', 1), 'exit_code');
    assert.equal(failureKind('failed', null), 'executor_error');
    assert.equal(failureKind('timed_out', null), 'timeout');
    assert.equal(failureKind('lost', null), 'lost_worker');
    assert.equal(failureKind('succeeded', 0), undefined);
    assert.equal(failureKind('killed', null), undefined);
  });

  it('grows memory by the factor up to the cap, and says when it cannot grow', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, memoryFactor: 2, maxMemMb: 3000 };
    assert.equal(nextMemory(policy, 1000, 10_000), 2000);
    assert.equal(nextMemory(policy, 2000, 10_000), 3000, 'capped by max_memory');
    assert.equal(nextMemory(policy, 3000, 10_000), undefined, 'already at the cap');
    assert.equal(nextMemory({ ...policy, maxMemMb: 0 }, 6000, 8000), 8000, "capped by the worker's memory");
    assert.equal(nextMemory({ ...policy, memoryFactor: 1 }, 1000, 10_000), undefined);
    assert.deepEqual(
      [2, 3, 4].map((n) => backoffBefore({ ...policy, backoffSeconds: 5 }, n)),
      [5, 10, 20],
    );
  });
});

describe('call-cache key', () => {
  it('does not depend on the order of members', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] }), '{"a":[{"c":2,"d":1}],"b":1}');
    assert.equal(canonicalJson({ a: 1, skipped: undefined }), '{"a":1}');
  });
});
