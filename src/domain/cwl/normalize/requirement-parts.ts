import { isFileObject } from '../document/file-literals.js';
import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { ArrayType, CwlDirectory, CwlFile, EnumType, InitialWorkDirEntry, InitialWorkDirRequirement, RecordType, SoftwarePackage } from '../model.js';
import { checkFields } from './check-fields.js';
import { FIELDS, versionAtLeast } from './fields.js';
import { assignDefined, RecordReader } from './read.js';
import { readType } from './types.js';

/** The bigger parts of some requirements, each read from the requirement's record. */

/** SchemaDefRequirement `types`: named record, enum and array types (command-input schemas). */
export function readSchemaDefTypes(record: RecordReader): (RecordType | EnumType | ArrayType)[] {
  const list = record.required('types') === undefined ? [] : (record.list('types') ?? []);
  return list.flatMap((item, index) => {
    const at = positionOf(list, index);
    if (!isPlainObject(item) || !['record', 'enum', 'array'].includes(item.type as string)) {
      record.context.diagnostics.error(`each of SchemaDefRequirement's types must be a record, enum or array type, not ${describeValue(item)}`, at);
      return [];
    }
    const scope = typeof item.name === 'string' ? item.name : '';
    const type = readType(item, at, 'commandInput', scope, record.context);
    return type && (type.kind === 'record' || type.kind === 'enum' || type.kind === 'array') ? [type] : [];
  });
}

export function readPackages(record: RecordReader): SoftwarePackage[] {
  const list = record.required('packages') === undefined ? [] : (record.list('packages') ?? []);
  return list.flatMap((item, index) => {
    if (!isPlainObject(item)) {
      record.context.diagnostics.error(`each of SoftwareRequirement's packages must be an object, not ${describeValue(item)}`, positionOf(list, index));
      return [];
    }
    const pkg = new RecordReader(item, 'a SoftwarePackage', record.context);
    checkFields(pkg, FIELDS.SoftwarePackage);
    const name = pkg.requiredString('package');
    return name === undefined ? [] : [{ package: name, version: pkg.strings('version') ?? [], specs: pkg.strings('specs') ?? [] }];
  });
}

/**
 * InitialWorkDirRequirement `listing`: one expression for the whole listing, or a list of Dirents,
 * File/Directory literals (v1.2 also lists of them) and expressions (v1.0 also plain strings).
 */
export function readInitialWorkDir(record: RecordReader): InitialWorkDirRequirement['listing'] | undefined {
  const value = record.required('listing');
  if (value === undefined) return undefined;
  if (typeof value === 'string') return { expression: value };
  if (!Array.isArray(value)) {
    record.error(`'listing' of InitialWorkDirRequirement must be a list or an expression, not ${describeValue(value)}`, 'listing');
    return undefined;
  }
  const entries: InitialWorkDirEntry[] = [];
  const add = (item: unknown, index: number): void => {
    const at = positionOf(value, index);
    if (typeof item === 'string') entries.push({ kind: 'expression', expression: item });
    else if (isFileObject(item)) entries.push({ kind: 'file', value: item as unknown as CwlFile | CwlDirectory });
    else if (Array.isArray(item) && versionAtLeast(record.context.version, 'v1.2') && item.every(isFileObject)) item.forEach((one) => add(one, index));
    else if (isPlainObject(item)) {
      const dirent = readDirent(new RecordReader(item, 'a Dirent', record.context));
      if (dirent) entries.push(dirent);
    } else
      record.context.diagnostics.error(
        `an entry of InitialWorkDirRequirement's listing must be a Dirent, a File, a Directory or an expression, not ${describeValue(item)}`,
        at,
      );
  };
  value.forEach(add);
  return entries;
}

function readDirent(record: RecordReader): InitialWorkDirEntry | undefined {
  checkFields(record, FIELDS.Dirent);
  const entryname = record.string('entryname');
  const entry = record.requiredString('entry');
  if (entry === undefined) return undefined;
  return assignDefined<InitialWorkDirEntry>({ kind: 'dirent', entry, writable: record.boolean('writable') ?? false }, { entryname });
}
