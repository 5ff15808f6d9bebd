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

/** Request ids share the 24-hex form (WIRE.md §3). */
export const newRequestId = (): string => randomBytes(12).toString('hex');

export const isId = (value: string): boolean => /^[0-9a-f]{24}$/.test(value);
