import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { SourcePosition } from '../errors.js';
import type { ArrayType, CwlType, EnumSymbol, EnumType, RecordField, RecordType, TypeInfo } from '../model.js';
import { nearest } from '../suggest.js';
import { isAbsoluteUri, scopedCandidates, shortname } from '../uri.js';
import { checkFields } from './check-fields.js';
import type { NormalizeContext } from './context.js';
import { FIELDS, type FieldTable } from './fields.js';
import { readCommandLineBinding } from './bindings.js';
import { isInputRole, readCommonParameterFields, type ParameterRole } from './parameter-fields.js';
import { assignDefined, RecordReader, type Json } from './read.js';

const SIMPLE_TYPES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'string', 'File', 'Directory', 'Any']);

/**
 * A parameter's (or field's, or item's) type in the model. `value` has its shorthands expanded and
 * references with a fragment made absolute (identifiers.ts); bare names are looked up as
 * schema-salad does (refScope 2 from `scope`, the enclosing identifier). Reports and returns
 * undefined when the type is not valid.
 */
export function readType(value: unknown, at: SourcePosition | undefined, role: ParameterRole, scope: string, context: NormalizeContext): CwlType | undefined {
  if (typeof value === 'string') return namedOrSimple(value, at, role, scope, context);
  if (Array.isArray(value)) {
    if (value.length === 0) return report(context, 'a union type must list at least one type', at);
    const members: CwlType[] = [];
    value.forEach((item, index) => {
      const type = readType(item, positionOf(value, index) ?? at, role, scope, context);
      for (const member of type?.kind === 'union' ? type.types : type ? [type] : []) {
        if (!members.some((m) => m === member || (m.kind === member.kind && SIMPLE_TYPES.has(m.kind)))) members.push(member);
      }
    });
    if (members.length === 0) return undefined;
    return members.length === 1 ? members[0] : { kind: 'union', types: members };
  }
  if (isPlainObject(value)) {
    const name = typeof value.name === 'string' ? value.name : undefined;
    return name === undefined ? typeObject(value, role, scope, context) : named(name, value, role, context);
  }
  return report(context, `a type must be a name, a list of types or a record/enum/array object, not ${describeValue(value)}`, at);
}

function namedOrSimple(name: string, at: SourcePosition | undefined, role: ParameterRole, scope: string, context: NormalizeContext): CwlType | undefined {
  if (SIMPLE_TYPES.has(name)) return { kind: name } as CwlType;
  if (name === 'stdin' || name === 'stdout' || name === 'stderr') {
    return report(context, `'${name}' is only valid as the whole type of a CommandLineTool ${name === 'stdin' ? 'input' : 'output'}`, at);
  }
  if (name === 'record' || name === 'enum' || name === 'array') {
    const part = name === 'array' ? 'items' : name === 'enum' ? 'symbols' : 'fields';
    return report(context, `'${name}' is not a type by itself: write {type: ${name}, ${part}: …}`, at);
  }
  const candidates = isAbsoluteUri(name) ? [name] : scopedCandidates(name, scope, 2);
  for (const uri of candidates) {
    const node = context.index.get(uri);
    if (isPlainObject(node) && typeof node.type === 'string' && ['record', 'enum', 'array'].includes(node.type)) return named(uri, node, role, context);
  }
  const known = [...SIMPLE_TYPES, ...[...context.index.keys()].filter((id) => isTypeDefinition(context.index.get(id))).map(shortname)];
  const suggestion = nearest(shortname(name), known);
  return report(context, `unknown type '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''} (tried ${candidates.join(', ')})`, at);
}

const isTypeDefinition = (node: unknown): boolean => isPlainObject(node) && ['record', 'enum', 'array'].includes(node.type as string);

/**
 * A named type, read once and shared by every use of its name; a type that contains itself is
 * refused. Named types are CommandInputSchemas (SchemaDefRequirement), so they are read with the
 * widest role of their side, whichever process uses them first.
 */
function named(uri: string, node: Json, use: ParameterRole, context: NormalizeContext): CwlType | undefined {
  const role: ParameterRole = isInputRole(use) ? 'commandInput' : 'commandOutput';
  const known = context.namedTypes.get(uri);
  if (known !== undefined) {
    return known ?? report(context, `type '${shortname(uri)}' refers to itself; recursive types are not supported`, positionOf(node));
  }
  context.namedTypes.set(uri, null);
  const type = typeObject(node, role, uri, context);
  if (type) context.namedTypes.set(uri, type);
  else context.namedTypes.delete(uri);
  return type;
}

function typeObject(node: Json, role: ParameterRole, scope: string, context: NormalizeContext): CwlType | undefined {
  const kind = node.type;
  if (kind !== 'record' && kind !== 'enum' && kind !== 'array') {
    return report(context, `a type object's 'type' must be record, enum or array, not ${describeValue(kind)}`, positionOf(node, 'type'));
  }
  const what = kind === 'record' ? 'a record type' : kind === 'enum' ? 'an enum type' : 'an array type';
  const record = new RecordReader(node, what, context);
  const table: FieldTable = kind === 'record' ? FIELDS.RecordSchema : kind === 'enum' ? FIELDS.EnumSchema : FIELDS.ArraySchema;
  checkFields(record, role === 'commandInput' ? new Map([...table, ['inputBinding', { since: 'v1.0' }]]) : table);
  const info = typeInfo(record, role);
  if (kind === 'array') {
    const items = readType(record.required('items'), record.at('items'), role, scope, context);
    return items && ({ kind: 'array', items, ...info } satisfies ArrayType);
  }
  if (kind === 'enum') return enumType(record, info);
  const fields = (record.list('fields') ?? []).flatMap((field, index) => {
    if (!isPlainObject(field))
      return report(context, `a record field must be an object, not ${describeValue(field)}`, positionOf(record.node.fields, index)) ?? [];
    return recordField(field, role, context) ?? [];
  });
  const names = new Set<string>();
  for (const field of fields) {
    if (names.has(field.name)) record.error(`record field '${field.name}' is declared twice`, 'fields');
    names.add(field.name);
  }
  return { kind: 'record', fields, ...info } satisfies RecordType;
}

function typeInfo(record: RecordReader, role: ParameterRole): TypeInfo {
  const info = assignDefined<{ -readonly [K in keyof TypeInfo]: TypeInfo[K] }>({}, { label: record.string('label'), doc: record.doc() });
  if (typeof record.node.name === 'string') info.name = record.node.name;
  const inputBinding = role === 'commandInput' ? record.object('inputBinding') : undefined;
  if (inputBinding) info.inputBinding = readCommandLineBinding(inputBinding, `the inputBinding of ${record.what}`, record.context).binding;
  return info;
}

function enumType(record: RecordReader, info: TypeInfo): EnumType | undefined {
  const symbols = record.required('symbols') === undefined ? undefined : record.strings('symbols');
  if (symbols === undefined) return undefined;
  const out: EnumSymbol[] = [];
  for (const uri of symbols) {
    const symbol = { uri, name: shortname(uri) };
    if (out.some((s) => s.name === symbol.name)) record.error(`enum symbol '${symbol.name}' is listed twice`, 'symbols');
    else out.push(symbol);
  }
  return { kind: 'enum', symbols: out, ...info };
}

function recordField(node: Json, role: ParameterRole, context: NormalizeContext): RecordField | undefined {
  const name = typeof node.name === 'string' ? node.name : undefined;
  const record = new RecordReader(node, name ? `record field '${shortname(name)}'` : 'a record field', context);
  let table: FieldTable = FIELDS.RecordField;
  if (isInputRole(role)) table = new Map([...table, ...FIELDS.InputRecordField]);
  if (role === 'commandInput') table = new Map([...table, ['inputBinding', { since: 'v1.0' }]]);
  if (role === 'commandOutput') table = new Map([...table, ['outputBinding', { since: 'v1.0' }]]);
  checkFields(record, table);
  if (name === undefined) return report(context, 'a record field is missing its name', record.at());
  const type = readType(record.required('type'), record.at('type'), role, name, context);
  if (!type) return undefined;
  const common = readCommonParameterFields(record, role);
  return assignDefined<RecordField>(
    { name: shortname(name), type, secondaryFiles: common.secondaryFiles, streamable: common.streamable },
    {
      label: common.label,
      doc: common.doc,
      format: common.inputFormat ?? (common.outputFormat === undefined ? undefined : [common.outputFormat]),
      loadContents: common.loadContents,
      loadListing: common.loadListing,
      inputBinding: common.inputBinding,
      outputBinding: common.outputBinding,
    },
  );
}

function report(context: NormalizeContext, message: string, at: SourcePosition | undefined): undefined {
  context.diagnostics.error(message, at);
  return undefined;
}
