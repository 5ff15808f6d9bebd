import { randomBytes } from 'node:crypto';

/**
 * Identifiers in the GeneDock API (tool_id, workflow_id, task_id, `_id`) are 24 lower-case hex
 * characters. We build them like MongoDB ObjectIds (4 bytes of seconds, then 8 random bytes) so
 * that they sort roughly by creation time, which makes logs and listings easier to read.
 */
export function newId(now: number = Date.now()): string {
  const seconds = Math.floor(now / 1000) >>> 0;
  return seconds.toString(16).padStart(8, '0') + randomBytes(8).toString('hex');
}

// Request ids are made on every request: draw random bytes in blocks rather than one call each.
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** Request ids share the 24-hex form (docs/wire.md §3). */
export function newRequestId(): string {
  if (poolOffset + 12 > pool.length) {
    pool = randomBytes(12 * 512);
    poolOffset = 0;
  }
  poolOffset += 12;
  return pool.toString('hex', poolOffset - 12, poolOffset);
}

export const isId = (value: string): boolean => /^[0-9a-f]{24}$/.test(value);
