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
  if (/[^\x20-\x7e]/.test(value)) throw invalid(`${field} '${shown}' may contain only letters, digits, '-' and '_' (Chinese and other non-ASCII characters are not supported)`);
  if (!/^[A-Za-z]/.test(value)) throw invalid(`${field} '${shown}' must start with a letter`);
  if (!NAME_PATTERN.test(value)) throw invalid(`${field} '${shown}' may contain only letters, digits, '-' and '_'`);
  return value;
}

/** A version from a query string or a body: a positive JSON integer or a decimal string of one. */
export function parseVersion(field: 'tool_version' | 'workflow_version', value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  if (typeof value === 'string' && /^[1-9][0-9]{0,8}$/.test(value)) return Number(value);
  const shown = typeof value === 'string' ? `'${value.slice(0, 40)}'` : JSON.stringify(value);
  throw invalid(`${field} ${shown} is not a positive integer`);
}

export function optionalVersion(field: 'tool_version' | 'workflow_version', value: unknown): number | undefined {
  return value === undefined ? undefined : parseVersion(field, value);
}
