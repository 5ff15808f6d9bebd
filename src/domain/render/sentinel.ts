import { RenderError } from './errors.js';

/**
 * User strings (file paths and string parameters) enter the template context wrapped in two
 * private-use characters, so that after rendering we can find every place a user value reached
 * the command, whatever filters and concatenations the template applied to it.
 */
export const OPEN = '\uE000';
export const CLOSE = '\uE001';

/** Characters a user value may not hold: NUL and the whole private-use area. */
export const FORBIDDEN = /[\u0000\uE000-\uF8FF]/; // eslint-disable-line no-control-regex -- finding NUL is the point
const SENTINELS = /[\uE000\uE001]/g;
/** Either marker, to find one in a text. */
export const SENTINEL = /[\uE000\uE001]/;

/** Refuse a user value that could forge or hide a marker. `member` names it in the error. */
export function checkUserString(value: string, member: string): void {
  if (FORBIDDEN.test(value)) throw new RenderError(`${member} must not contain NUL or private-use characters`);
}

/** Wrap a user string; the empty string stays as is (it carries nothing and must stay falsy). */
export const wrap = (value: string): string => (value === '' ? '' : OPEN + value + CLOSE);

export const stripSentinels = (text: string): string => text.replace(SENTINELS, '');

const SINGLE_SPAN = /^\uE000[^\uE000\uE001]*\uE001$/;

/** True when the whole string is exactly one wrapped user value. */
export const isSingleSpan = (text: string): boolean => SINGLE_SPAN.test(text);
