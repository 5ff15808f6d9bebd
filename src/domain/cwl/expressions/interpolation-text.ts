import type { Json } from './json-value.js';

/**
 * The text a value becomes inside an interpolated string ("String interpolation" of CWL v1.2): a string as it
 * is; anything else as JSON with object members sorted by key. The JSON is written byte for byte as the
 * reference runner writes it (Python's json.dumps: ", " and ": " between items, non-ASCII characters as \uXXXX,
 * floats in Python's notation), because the suite checks the checksums of files written from such text
 * (InitialWorkDirRequirement entries that evaluate to lists or numbers). One difference cannot be avoided: a
 * float with no fraction (5.0 in a job file) is the number 5 here and is written `5`, where Python writes `5.0`. An
 * integer beyond 2^53 is a bigint and is written with all its digits, as Python writes its integers.
 */
export function interpolationText(value: Json): string {
  return typeof value === 'string' ? value : jsonText(value);
}

function jsonText(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return stringText(value);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(', ')}]`;
  const members = Object.keys(value)
    .sort()
    .map((key) => `${stringText(key)}: ${jsonText(value[key] as Json)}`);
  return `{${members.join(', ')}}`;
}

function stringText(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) out += code === 0x22 ? '\\"' : code === 0x5c ? '\\\\' : text[i];
    else out += SHORT_ESCAPES[code] ?? `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

const SHORT_ESCAPES: Record<number, string> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r' };

/**
 * Whole numbers below 1e21 come back from JavaScript as JSON integers, which Python prints as integers; the rest
 * are Python floats, printed by repr(): the same shortest digits as JavaScript, in fixed notation when the
 * exponent is from -4 to 15 (always with a fraction) and otherwise as 1.5e-07 or 1e+21.
 */
function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const sign = value < 0 ? '-' : '';
  const [mantissa = '0', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const power = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${power}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  return `${sign}${whole}.${digits.slice(exponent + 1) || '0'}`;
}
