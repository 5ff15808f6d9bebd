import { usageError } from './exit.js';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * A point in time given on the command line, in seconds since the epoch: an ISO 8601 time
 * (`2026-11-24T09:00Z`, `2026-11-24`) or a duration back from `now` (`90s`, `15m`, `1h`, `2d`, `1w`).
 */
export function parseSince(text: string, now: number = Date.now()): number {
  const relative = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text.trim());
  if (relative) return now / 1000 - Number(relative[1]) * UNITS[relative[2]!]!;
  // Date.parse takes more than ISO 8601 (e.g. "1"): only what starts like a date is tried.
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (Number.isNaN(ms)) throw usageError(`--since '${text}' is neither an ISO time (2026-11-24T09:00:00Z) nor a duration back from now (30m, 1h, 2d)`);
  return ms / 1000;
}
