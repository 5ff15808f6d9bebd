/**
 * Parameter values as the run template declares them (`type`, `minvalue`, `maxvalue`, `value`, `required`): a value
 * typed on a command line or in a sample sheet takes the declared type, then is checked against it before anything
 * is submitted. The server checks again; this only makes the refusal come first and name the option or the row.
 */

const NUMERIC = new Set(['integer', 'int', 'number', 'float']);
const INTEGER = new Set(['integer', 'int']);
const FLAG = new Set(['flag', 'boolean', 'bool']);

/** Text as the parameter's declared type: "8" → 8 for numbers, "true"/"yes"/"1" → true for flags; else unchanged. */
export function typedValue(value: string, type: unknown): unknown {
  if (NUMERIC.has(String(type))) return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  if (FLAG.has(String(type))) return /^(true|yes|1)$/i.test(value) ? true : /^(false|no|0)$/i.test(value) ? false : value;
  return value;
}

/** What is wrong with a value for the parameter `spec` (a run template entry), or undefined when nothing is. */
export function parameterProblem(spec: Record<string, unknown>, value: unknown): string | undefined {
  const type = String(spec.type);
  const blank = (v: unknown) => v === undefined || v === null || v === '';
  if (blank(value)) return spec.required && blank(spec.value) ? 'is required' : undefined;
  if (NUMERIC.has(type)) {
    const n = typeof value === 'string' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) return `must be a number, not ${JSON.stringify(value)}`;
    if (INTEGER.has(type) && !Number.isInteger(n)) return `must be an integer, not ${JSON.stringify(value)}`;
    if (typeof spec.minvalue === 'number' && n < spec.minvalue) return `is ${n}, below the minimum ${spec.minvalue}`;
    if (typeof spec.maxvalue === 'number' && n > spec.maxvalue) return `is ${n}, above the maximum ${spec.maxvalue}`;
  }
  if (FLAG.has(type) && typeof value !== 'boolean') return `must be true or false, not ${JSON.stringify(value)}`;
  return undefined;
}
