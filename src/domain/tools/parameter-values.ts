import { invalid } from '../errors.js';
import { describe } from '../json.js';
import type { ParameterDefinition } from './types.js';

/**
 * Whether a parameter's value fits its declaration: checked when a workflow sets it, when a task is activated, and
 * by the code gdflow embeds in an exported CWL document (domain/cwl/export/), which runs where no gdflow server is.
 */

/** Check a parameter value against its declared type; returns a reason, or undefined when fine. */
export function parameterValueProblem(def: Pick<ParameterDefinition, 'type' | 'minvalue' | 'maxvalue'>, value: unknown): string | undefined {
  switch (def.type) {
    case 'string':
      if (typeof value !== 'string' && typeof value !== 'number') return `must be a string, not ${describe(value)}`;
      // eslint-disable-next-line no-control-regex -- finding NUL is the point (FORBIDDEN of render/sentinel.ts, kept here: this file is embedded in exported CWL)
      if (typeof value === 'string' && /[\u0000\uE000-\uF8FF]/.test(value)) return 'must not contain NUL or private-use characters';
      return undefined;
    case 'flag':
      return typeof value === 'boolean' ? undefined : `must be true or false, not ${describe(value)}`;
    case 'integer':
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return `must be a number, not ${describe(value)}`;
      if (def.type === 'integer' && !Number.isInteger(n)) return `must be an integer, not ${describe(value)}`;
      if (def.minvalue !== undefined && n < def.minvalue) return `is ${n}, below the minimum ${def.minvalue}`;
      if (def.maxvalue !== undefined && n > def.maxvalue) return `is ${n}, above the maximum ${def.maxvalue}`;
      return undefined;
    }
  }
}

/**
 * A task's value of a parameter as the command sees it: a missing, null or empty value is the tool's default (refused
 * when the parameter is required and has none); numbers are numbers and strings strings. `path` names the value.
 */
export function coerceParameter(spec: ParameterDefinition, value: unknown, path: string): unknown {
  if (value === undefined || value === null || value === '') {
    if (spec.required && (spec.default === null || spec.default === undefined || spec.default === '')) throw invalid(`${path} is required`);
    return spec.default ?? null;
  }
  const problem = parameterValueProblem(spec, value);
  if (problem) throw invalid(`${path} ${problem}`);
  if (spec.type === 'integer' || spec.type === 'number') return Number(value);
  // A string parameter also takes a number (parameterValueProblem let only those two through): its text.
  if (spec.type === 'string') return typeof value === 'number' ? String(value) : value;
  return value;
}
