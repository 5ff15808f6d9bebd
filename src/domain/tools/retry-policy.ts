import { invalid } from '../errors.js';
import { describe, optionalNumber, optionalObject, type JsonObject } from '../json.js';

/**
 * When a failed job runs again (docs/tasks.md, "Retries"): a tool's `retry` member, or the server's default.
 * An attempt that failed in one of the `on` ways is followed by another, up to `maxAttempts` in all, after
 * `backoffSeconds` (doubled for each further attempt); one that ran out of memory gets its memory multiplied by
 * `memoryFactor`, up to `maxMemMb` (0: as much as a worker has).
 */
export type RetryOn = 'exit_code' | 'out_of_memory' | 'timeout' | 'lost_worker' | 'executor_error';
export const RETRY_ON: readonly RetryOn[] = ['exit_code', 'out_of_memory', 'timeout', 'lost_worker', 'executor_error'];

export interface RetryPolicy {
  maxAttempts: number;
  backoffSeconds: number;
  on: RetryOn[];
  memoryFactor: number;
  maxMemMb: number;
}

export const MAX_ATTEMPTS = 10;

/** The server's default when neither the tool nor the configuration says: no retries but after a lost worker. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, backoffSeconds: 0, on: ['lost_worker'], memoryFactor: 1, maxMemMb: 0 };

/** Reads a size in MiB written as '8g', '512m' or a number of MiB. */
export type SizeReader = (text: string) => number | undefined;

/**
 * A retry policy document (the tool definition's `retry`, or the configuration's), its members in snake_case:
 * max_attempts, backoff_seconds, on, memory_factor, max_memory. Absent members come from `base`.
 */
export function readRetryPolicy(raw: unknown, path: string, base: RetryPolicy, parseSize: SizeReader): RetryPolicy {
  const doc: JsonObject = optionalObject(raw, path);
  for (const key of Object.keys(doc)) {
    if (!['max_attempts', 'backoff_seconds', 'on', 'memory_factor', 'max_memory'].includes(key)) {
      throw invalid(`${path}.${key} is not a member of a retry policy (max_attempts, backoff_seconds, on, memory_factor, max_memory)`);
    }
  }
  const policy = { ...base, on: [...base.on] };
  const attempts = optionalNumber(doc.max_attempts, `${path}.max_attempts`);
  if (attempts !== undefined) {
    if (!Number.isInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS)
      throw invalid(`${path}.max_attempts must be an integer from 1 to ${MAX_ATTEMPTS}, not ${attempts}`);
    policy.maxAttempts = attempts;
  }
  const backoff = optionalNumber(doc.backoff_seconds, `${path}.backoff_seconds`);
  if (backoff !== undefined) {
    if (backoff < 0 || backoff > 3600) throw invalid(`${path}.backoff_seconds must be from 0 to 3600, not ${backoff}`);
    policy.backoffSeconds = backoff;
  }
  if (doc.on !== undefined && doc.on !== null) {
    if (!Array.isArray(doc.on)) throw invalid(`${path}.on must be a list of ${RETRY_ON.join(', ')}, not ${describe(doc.on)}`);
    policy.on = doc.on.map((value, i) => {
      if (typeof value !== 'string' || !RETRY_ON.includes(value as RetryOn))
        throw invalid(`${path}.on[${i}] must be one of ${RETRY_ON.join(', ')}, not ${describe(value)}`);
      return value as RetryOn;
    });
  }
  const factor = optionalNumber(doc.memory_factor, `${path}.memory_factor`);
  if (factor !== undefined) {
    if (factor < 1 || factor > 16) throw invalid(`${path}.memory_factor must be from 1 to 16, not ${factor}`);
    policy.memoryFactor = factor;
  }
  if (doc.max_memory !== undefined && doc.max_memory !== null) {
    const mb = typeof doc.max_memory === 'number' ? doc.max_memory : typeof doc.max_memory === 'string' ? parseSize(doc.max_memory) : undefined;
    if (mb === undefined || !Number.isFinite(mb) || mb < 0)
      throw invalid(`${path}.max_memory must be a size such as '16g' or '8192m', not ${describe(doc.max_memory)}`);
    policy.maxMemMb = Math.round(mb);
  }
  return policy;
}

/** How an ended attempt failed, in the words of a policy's `on`; undefined for an attempt that did not fail. */
export function failureKind(outcome: string, exitCode: number | null): RetryOn | undefined {
  switch (outcome) {
    case 'out_of_memory':
      return 'out_of_memory';
    case 'timed_out':
      return 'timeout';
    case 'lost':
      return 'lost_worker';
    case 'failed':
      return exitCode === null ? 'executor_error' : 'exit_code';
    default:
      return undefined;
  }
}

/** The memory of the attempt after one that ran out of memory with `memMb`, or undefined when it cannot grow. */
export function nextMemory(policy: RetryPolicy, memMb: number, ceilingMb: number): number | undefined {
  if (policy.memoryFactor <= 1 || memMb <= 0) return undefined;
  const cap = policy.maxMemMb > 0 ? Math.min(policy.maxMemMb, ceilingMb) : ceilingMb;
  const next = Math.min(Math.ceil(memMb * policy.memoryFactor), cap);
  return next > memMb ? next : undefined;
}

/** The wait before attempt `attempt` (2, 3, ...): the backoff, doubled for each attempt after the second. */
export function backoffBefore(policy: RetryPolicy, attempt: number): number {
  return policy.backoffSeconds * 2 ** Math.max(0, attempt - 2);
}
