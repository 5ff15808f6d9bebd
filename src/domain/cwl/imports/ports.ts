import { stringifyExactJson } from '../../../contract/exact-json.js';
import { describeType } from '../types/describe.js';
import { formatName } from '../export/formats.js';
import { acceptsNull, membersOf, type CwlType, type InputParameter, type OutputParameter } from '../model.js';

/**
 * A CWL process's inputs and outputs as GeneDock sees a tool's (INTERFACE.md 2.2; docs/cwl.md, "Import"): a File, a
 * Directory, or a list of either is an input or output port (files a task stages and stores); any other input is a
 * parameter, of the GeneDock type nearest to its CWL type. Outputs that are not files have no GeneDock place: they
 * are in the CWL document (and in a CWL run's output object), not in the view.
 */

type Json = Record<string, unknown>;

/** How many files a list port may hold in the view: CWL lists have no bound. */
export const LIST_MAX_ITEMS = 10_000;

/** The port a type makes: one file or directory, or a list of them; undefined for any other type. */
export function portShape(type: CwlType): { kind: 'file' | 'directory'; list: boolean; optional: boolean } | undefined {
  const members = membersOf(type).filter((t) => t.kind !== 'null');
  if (members.length !== 1) return undefined;
  const [member] = members as [CwlType];
  const optional = acceptsNull(type);
  if (member.kind === 'File' || member.kind === 'Directory') return { kind: member.kind === 'File' ? 'file' : 'directory', list: false, optional };
  if (member.kind === 'array' && (member.items.kind === 'File' || member.items.kind === 'Directory')) {
    return { kind: member.items.kind === 'File' ? 'file' : 'directory', list: true, optional };
  }
  return undefined;
}

const described = (parameter: { label?: string | undefined; doc?: string | undefined }): string => [parameter.label, parameter.doc].filter(Boolean).join(': ');

function port(parameter: InputParameter | OutputParameter, shape: NonNullable<ReturnType<typeof portShape>>): Json {
  const required = !shape.optional;
  return {
    name: parameter.name,
    type: shape.kind,
    hint: described(parameter),
    minitems: shape.list ? 0 : required ? 1 : 0,
    maxitems: shape.list ? LIST_MAX_ITEMS : 1,
    required,
  };
}

/** An input port: its formats as GeneDock names (`edam:format_1930` is `fastq`). */
export function inputPort(input: InputParameter): Json | undefined {
  const shape = portShape(input.type);
  if (!shape) return undefined;
  return { ...port(input, shape), formats: (input.format ?? []).filter((f) => !f.includes('$(') && !f.includes('${')).map(formatName) };
}

/** An output port: its format as GeneDock writes an output's (one comma-separated string). */
export function outputPort(output: OutputParameter): Json | undefined {
  const shape = portShape(output.type);
  if (!shape) return undefined;
  return { ...port(output, shape), formats: output.format !== undefined && !output.format.includes('$') ? formatName(output.format) : '' };
}

/** A parameter: GeneDock's nearest type (`integer`, `number`, `flag`, else `string`), its default, and what CWL says. */
export function parameter(input: InputParameter): Json {
  const members = membersOf(input.type).filter((t) => t.kind !== 'null');
  const kind = members.length === 1 ? members[0]!.kind : 'union';
  const type = kind === 'int' || kind === 'long' ? 'integer' : kind === 'float' || kind === 'double' ? 'number' : kind === 'boolean' ? 'flag' : 'string';
  const simple = ['int', 'long', 'float', 'double', 'boolean', 'string'].includes(kind);
  // What GeneDock's type cannot say (a list, a record, an enum's symbols) is said in the hint, from CWL's type.
  const hint = [described(input), simple ? '' : `CWL type ${describeType(input.type)}${kind === 'enum' ? '' : ', as JSON'}`].filter(Boolean).join('; ');
  const value = input.default === undefined ? null : simple ? input.default : stringifyExactJson(input.default);
  return { type, hint, default: value, required: !acceptsNull(input.type) && input.default === undefined, variable: true };
}
