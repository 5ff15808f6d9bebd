/**
 * Placeholders in a batch template: `{$name}` anywhere inside a string value (input and output
 * names, the task name, parameter values, descriptions) is replaced by the row's value of the
 * column `name`. Object keys (node ids, parameter names) are never rewritten.
 */
const PLACEHOLDER = /\{\$([^{}$]+)\}/g;
const WHOLE = /^\{\$([^{}$]+)\}$/;

/** Every placeholder name used anywhere in the value. */
export function placeholdersIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') for (const match of value.matchAll(PLACEHOLDER)) found.add(match[1]!.trim());
  else if (Array.isArray(value)) for (const item of value) placeholdersIn(item, found);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) placeholdersIn(item, found);
  return found;
}

/** The string with its placeholders replaced. */
export function fillString(text: string, values: Record<string, string>): string {
  if (!text.includes('{$')) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) => values[name.trim()] ?? whole);
}

/** Whether a string is exactly one placeholder (its value may then take the parameter's type). */
export const wholePlaceholder = (text: string): string | undefined => WHOLE.exec(text)?.[1]?.trim();

/** A deep copy of the template with every string filled in from the row. */
export function fillTemplate<T>(template: T, values: Record<string, string>): T {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') return fillString(value, values);
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = fill(item);
      return out;
    }
    return value;
  };
  return fill(template) as T;
}
