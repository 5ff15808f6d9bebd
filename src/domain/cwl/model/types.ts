import type { CommandLineBinding, CommandOutputBinding, LoadListing, SecondaryFileSpec } from './bindings.js';

/**
 * CWL's type system as one tagged union, switched on `kind`.
 *
 * What the loader has already done, so that no consumer has to:
 * - type shorthands are expanded (`File[]?` is a union of null and an array of File);
 * - a union is flat (no union inside a union) and has at least two members;
 * - references to named types (`#MyRecord`, `types.yml#MyEnum`, `SchemaDefRequirement` names) are
 *   replaced by the definition itself: the same object wherever the name is used, so the model
 *   is a tree (recursive types are refused at load);
 * - `stdin`/`stdout`/`stderr` parameter shorthands are rewritten (see `CommandLineTool`).
 */
export type CwlType = PrimitiveType | FileType | DirectoryType | AnyType | ArrayType | RecordType | EnumType | UnionType;

export type PrimitiveTypeName = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'string';

export interface PrimitiveType {
  readonly kind: PrimitiveTypeName;
}

export interface FileType {
  readonly kind: 'File';
}

export interface DirectoryType {
  readonly kind: 'Directory';
}

/** Any non-null value. */
export interface AnyType {
  readonly kind: 'Any';
}

/** What array, record and enum types share: an optional name and documentation. */
export interface TypeInfo {
  /** Absolute URI of a named type (`file:///wf.cwl#MyRecord`); absent for an anonymous one. */
  readonly name?: string;
  readonly label?: string;
  readonly doc?: string;
  /** How a CommandLineTool input of this type is bound (CommandInput*Schema only). */
  readonly inputBinding?: CommandLineBinding;
}

export interface ArrayType extends TypeInfo {
  readonly kind: 'array';
  readonly items: CwlType;
}

export interface RecordType extends TypeInfo {
  readonly kind: 'record';
  /** In the order the document gives (a map form `fields: {a: …, b: …}` is sorted by name, as schema-salad does). */
  readonly fields: readonly RecordField[];
}

export interface RecordField {
  /** The field's key in a record value (the short name, `reads`, not the field's URI). */
  readonly name: string;
  readonly type: CwlType;
  readonly label?: string;
  readonly doc?: string;
  readonly inputBinding?: CommandLineBinding;
  readonly outputBinding?: CommandOutputBinding;
  readonly secondaryFiles: readonly SecondaryFileSpec[];
  readonly streamable: boolean;
  /** Input record fields: URIs or expressions, any of which the File's format may match. */
  readonly format?: readonly string[];
  readonly loadContents?: boolean;
  readonly loadListing?: LoadListing;
}

export interface EnumType extends TypeInfo {
  readonly kind: 'enum';
  readonly symbols: readonly EnumSymbol[];
}

/**
 * schema-salad resolves enum symbols to URIs (`file:///t.cwl#color/red`); a job names a symbol by
 * its short name (`red`), which is also what a command line and an output print. Comparisons use
 * the short name (and accept the full URI), as cwltool does.
 */
export interface EnumSymbol {
  readonly uri: string;
  /** The last segment of the URI's fragment (or path), as cwltool's `shortname`. */
  readonly name: string;
}

export interface UnionType {
  readonly kind: 'union';
  /** Two or more members, none of them a union. */
  readonly types: readonly CwlType[];
}

export const NULL_TYPE: PrimitiveType = { kind: 'null' };

/** The member types of a type: a union's members, or the type itself. */
export const membersOf = (type: CwlType): readonly CwlType[] => (type.kind === 'union' ? type.types : [type]);

/** True when `null` is a valid value of the type (an optional type, `T?`). */
export const acceptsNull = (type: CwlType): boolean => membersOf(type).some((t) => t.kind === 'null');
