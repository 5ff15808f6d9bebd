import { MAX_VERSION } from '../contract/limits.js';
import { invalid } from './errors.js';

/**
 * Names of tools, workflows and tasks (INTERFACE.md §8): 3 to 128 characters; letters, digits,
 * `-` and `_`; starting with a letter. Account and project names follow the same rule.
 */
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{2,127}$/;

export type NamedThing = 'tool_name' | 'workflow_name' | 'task_name' | 'account_name' | 'project_name';

/** Returns the name, or throws InvalidInput whose reason says exactly what is wrong. */
export function checkName(field: NamedThing, value: unknown): string {
  if (value === undefined || value === null || value === '') throw invalid(`${field} is required`);
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  const shown = value.length > 140 ? `${value.slice(0, 137)}...` : value;
  if (value.length < 3) throw invalid(`${field} '${shown}' is too short (3 to 128 characters)`);
  if (value.length > 128) throw invalid(`${field} '${shown}' is too long (3 to 128 characters)`);
  if (/[^\x20-\x7e]/.test(value))
    throw invalid(`${field} '${shown}' may contain only letters, digits, '-' and '_' (Chinese and other non-ASCII characters are not supported)`);
  if (!/^[A-Za-z]/.test(value)) throw invalid(`${field} '${shown}' must start with a letter`);
  if (!NAME_PATTERN.test(value)) throw invalid(`${field} '${shown}' may contain only letters, digits, '-' and '_'`);
  return value;
}

/**
 * A version written as text (a query parameter, the version in an app_id): decimal digits only. `1e0`, `0x1`,
 * `0b1`, ` 1`, `+1` and `1.0` all read as 1 to JavaScript's Number(), and none of them is a version.
 */
export function decimalVersion(text: string): number | undefined {
  if (!/^[0-9]{1,18}$/.test(text)) return undefined;
  const version = Number(text);
  return version >= 1 && version <= MAX_VERSION ? version : undefined;
}

/**
 * A version in a query, as the route's schema let it through: decimal digits from 1 to 999999999 (contract/common.ts).
 * It is read, not checked again; a version in a JSON body arrives as the integer its schema checked.
 */
export function queryVersion(text: string): number;
export function queryVersion(text: string | undefined): number | undefined;
export function queryVersion(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}
