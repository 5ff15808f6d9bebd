/** Seconds since the epoch with fraction, as the API returns times. */
export const nowSeconds = (): number => Date.now() / 1000;

/** `YYYY-MM-DD HH:MM:SS` in UTC, the form of `configs.modified_time`. */
export function formatDateTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Round to microseconds so that times survive JSON round trips identically on every backend. */
export const roundTime = (seconds: number): number => Math.round(seconds * 1e6) / 1e6;
