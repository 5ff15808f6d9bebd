import type { ParameterDefinition, PortDefinition } from '../../tools/definition.js';
import { formatTerms } from './formats.js';

/** The CWL types and defaults of a gdflow tool's ports and parameters. */

type Json = unknown;

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** `int` when the declared range fits CWL's 32 bits, else `long` (gdflow's integers have no such bound). */
function integerType(spec: ParameterDefinition): string {
  const fits = (n: number | undefined): boolean => n !== undefined && n >= INT32.min && n <= INT32.max;
  return fits(spec.minvalue) && fits(spec.maxvalue) ? 'int' : 'long';
}

const TYPES: Record<ParameterDefinition['type'], (spec: ParameterDefinition) => string> = {
  string: () => 'string',
  integer: integerType,
  number: () => 'double',
  flag: () => 'boolean',
};

const blank = (value: unknown): boolean => value === undefined || value === null || value === '';

/** A parameter's default as its CWL type holds it (a definition may give an integer's default as the text '5'). */
export function parameterDefault(spec: ParameterDefinition): Json {
  if (blank(spec.default)) return undefined;
  if (spec.type === 'integer' || spec.type === 'number') return Number(spec.default);
  if (spec.type === 'string') return String(spec.default);
  return spec.default;
}

/** A hint as a sentence of a doc: with a full stop unless it ends with one. */
const sentence = (text: string): string => (text === '' || /[.!?]$/.test(text) ? text : `${text}.`);

function rangeText(spec: ParameterDefinition): string {
  if (spec.minvalue !== undefined && spec.maxvalue !== undefined) return `from ${spec.minvalue} to ${spec.maxvalue}`;
  if (spec.minvalue !== undefined) return `at least ${spec.minvalue}`;
  if (spec.maxvalue !== undefined) return `at most ${spec.maxvalue}`;
  return '';
}

/**
 * A parameter as a CWL input: optional unless gdflow requires a value and has no default (a task without one is
 * refused); its default the tool's. The range is checked when the command is made (embedded/command.ts).
 */
export function parameterInput(spec: ParameterDefinition): Record<string, Json> {
  const fallback = parameterDefault(spec);
  const optional = !(spec.required && fallback === undefined);
  const range = rangeText(spec);
  const doc = [sentence(spec.hint), range && `gdflow checks that the value is ${range}.`].filter((part) => part !== '').join(' ');
  return {
    type: `${TYPES[spec.type](spec)}${optional ? '?' : ''}`,
    ...(fallback !== undefined ? { default: fallback } : {}),
    ...(doc !== '' ? { doc } : {}),
  };
}

/** A port's CWL type: a File when it takes one file at most, else a list; optional when it may have none. */
export function fileType(port: PortDefinition): string {
  const optional = !port.required && port.minitems === 0;
  return `${port.maxitems > 1 ? 'File[]' : 'File'}${optional ? '?' : ''}`;
}

/** An input port as a CWL input: its type, the formats it accepts, its hint. */
export function fileInput(port: PortDefinition): Record<string, Json> {
  const formats = formatTerms(port.formats);
  const counts = port.maxitems > 1 ? `${port.minitems} to ${port.maxitems} files.` : '';
  const doc = [sentence(port.hint), counts].filter((part) => part !== '').join(' ');
  return {
    type: fileType(port),
    ...(formats.length > 0 ? { format: formats } : {}),
    ...(doc !== '' ? { doc } : {}),
  };
}
