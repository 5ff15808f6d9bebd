/**
 * Values that flow through a CWL run: what a job (input) object holds, what defaults hold, and
 * what outputs are. They are plain JSON: a File or Directory is an object whose `class` says so.
 */

/** Any CWL value: JSON, where objects with `class: File|Directory` are files and directories. */
export type CwlValue = null | boolean | number | bigint | string | readonly CwlValue[] | CwlFile | CwlDirectory | CwlRecordValue;

/** A record value (or any other plain object, such as a value of type Any). */
export interface CwlRecordValue {
  readonly [field: string]: CwlValue;
}

/**
 * A File object. After loading (a job object, a default, an InitialWorkDirRequirement literal)
 * `location` is an absolute URI, or absent for a literal file that has `contents` instead; `path`
 * is absent (it is the staged path, set when the engine stages the file); `basename`, `nameroot`
 * and `nameext` are filled from the location (or the given basename). Fields CWL does not define
 * are dropped.
 */
export interface CwlFile {
  readonly class: 'File';
  readonly location?: string;
  /** The local path where the file is staged (set by the engine, never by the loader). */
  readonly path?: string;
  readonly basename?: string;
  readonly dirname?: string;
  readonly nameroot?: string;
  readonly nameext?: string;
  readonly size?: number;
  /** `sha1$<hex>` as CWL writes it. */
  readonly checksum?: string;
  /** An absolute URI (namespace prefixes such as `edam:` are expanded). */
  readonly format?: string;
  /** The text of a literal file, or the first 64 KiB read by `loadContents`. */
  readonly contents?: string;
  readonly secondaryFiles?: readonly (CwlFile | CwlDirectory)[];
}

/** A Directory object: like a File, with an optional `listing` (a literal directory has only the listing). */
export interface CwlDirectory {
  readonly class: 'Directory';
  readonly location?: string;
  readonly path?: string;
  readonly basename?: string;
  readonly listing?: readonly (CwlFile | CwlDirectory)[];
}

/** The input object of a run: input name (short, as a job file writes it) to value. */
export type CwlInputObject = Readonly<Record<string, CwlValue>>;

/** The output object of a run: output name (short) to value; an output without a value is null. */
export type CwlOutputObject = Readonly<Record<string, CwlValue>>;

export const isFile = (value: unknown): value is CwlFile =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { class?: unknown }).class === 'File';

export const isDirectory = (value: unknown): value is CwlDirectory =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { class?: unknown }).class === 'Directory';
