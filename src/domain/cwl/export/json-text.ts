/**
 * JSON for people: a list or object that fits on one line stays on one line, a longer one gets one member per
 * line. The exported documents write the static arguments of their expressions this way, so that a tool's
 * expression reads like its definition.
 */

const WIDTH = 100;

/** JSON is JavaScript but for these two line terminators, which ES5 does not allow in string literals. */
const scriptSafe = (text: string): string => text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

const members = (value: object): [string, unknown][] => Object.entries(value).filter(([, member]) => member !== undefined);

function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${members(value)
      .map(([key, member]) => `${JSON.stringify(key)}: ${oneLine(member)}`)
      .join(', ')}}`;
  return scriptSafe(JSON.stringify(value) ?? 'null');
}

export function readableJson(value: unknown, indent = ''): string {
  const flat = oneLine(value);
  if (typeof value !== 'object' || value === null || indent.length + flat.length <= WIDTH) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((item) => inner + readableJson(item, inner)).join(',\n')}\n${indent}]`;
  return `{\n${members(value)
    .map(([key, member]) => `${inner}${JSON.stringify(key)}: ${readableJson(member, inner)}`)
    .join(',\n')}\n${indent}}`;
}
