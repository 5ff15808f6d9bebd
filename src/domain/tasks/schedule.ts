import { invalid } from '../errors.js';

/**
 * `Conditions.schedule`: when a task may start. Accepted forms (docs/tasks.md):
 *   ''                              start now
 *   1795334400 or '1795334400'      unix seconds
 *   '2026-11-22T10:00:00Z'          ISO 8601 with a zone (Z or ±hh:mm)
 *   '2026-11-22 10:00:00'           UTC, as the API writes times
 * A time in the past means now.
 */
export function parseSchedule(value: unknown, path = 'parameters.Conditions.schedule'): number | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw invalid(`${path} ${value} is not a time`);
    return value;
  }
  if (typeof value !== 'string') throw invalid(`${path} must be a string or unix seconds`);
  const text = value.trim();
  if (text === '') return null;
  if (/^\d{9,11}(\.\d+)?$/.test(text)) return Number(text);
  const utc = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (utc) return Date.UTC(+utc[1]!, +utc[2]! - 1, +utc[3]!, +utc[4]!, +utc[5]!, +(utc[6] ?? 0)) / 1000;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms / 1000;
  }
  throw invalid(`${path} '${text.slice(0, 60)}' is not a time: use unix seconds, '2026-11-22T10:00:00Z' or '2026-11-22 10:00:00' (UTC)`);
}
