/**
 * The multipart forms of the wdl/ routes as the clients send them (docs/wire.md §8): text fields and files, parsed by
 * the server (server/multipart.ts) and read here field by field, so that every refusal names the field.
 */
import { decimalVersion } from '../../names.js';
import { invalid } from '../../errors.js';
import { isMultipartForm, type FormFile, type MultipartForm } from '../../multipart-form.js';

export type { FormFile, MultipartForm };

/** The largest `.wdl` accepted, and the largest zip of imports (its files, unpacked, are limited in zip.ts). */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;
export const MAX_DEPENDENCIES_BYTES = 32 * 1024 * 1024;

/**
 * The form of a request whose every field comes once (the wdl/ routes), or a refusal saying what to send (`what`: the
 * fields of the route, for the message) or which field is sent twice.
 */
export function expectForm(body: unknown, what: string): MultipartForm {
  if (!isMultipartForm(body)) throw invalid(`the body must be multipart/form-data with ${what}`);
  if (body.repeated !== undefined) throw invalid(`field '${body.repeated.slice(0, 128)}' is sent twice`);
  return body;
}

/** A text field, trimmed of nothing: exactly as sent; undefined when absent. A file sent under the name is refused. */
export function textField(form: MultipartForm, name: string, maxLength = 4096): string | undefined {
  if (form.files[name] !== undefined) throw invalid(`${name} must be a text field, not a file`);
  const value = form.fields[name];
  if (value !== undefined && value.length > maxLength) throw invalid(`${name} is longer than ${maxLength} characters`);
  return value;
}

/** A version field (`workflow_version`, `new_version`): decimal digits, 1 or more. */
export function versionField(form: MultipartForm, name: string): number | undefined {
  const text = textField(form, name, 32);
  if (text === undefined || text === '') return undefined;
  const version = decimalVersion(text.trim());
  if (version === undefined) throw invalid(`${name} '${text.slice(0, 32)}' is not a version (a whole number from 1)`);
  return version;
}

/** `override`: gwc sends the strings `True` and `False` (Python's); `true`/`false`/`1`/`0` are taken too. */
export function booleanField(form: MultipartForm, name: string): boolean | undefined {
  const text = textField(form, name, 16);
  if (text === undefined || text === '') return undefined;
  const lower = text.trim().toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw invalid(`${name} '${text.slice(0, 16)}' is not True or False`);
}

/** A file part; a text field sent under the name is refused (the client sent the path instead of the file). */
export function fileField(form: MultipartForm, name: string, maxBytes: number): FormFile | undefined {
  const file = form.files[name];
  if (file === undefined) {
    if (form.fields[name] !== undefined && form.fields[name] !== '')
      throw invalid(`${name} must be sent as a file part (with a filename), not as a text field`);
    return undefined;
  }
  if (file.data.length > maxBytes) throw invalid(`${name} '${file.filename.slice(0, 100)}' has ${file.data.length} bytes; the limit is ${maxBytes}`);
  return file;
}

/** A file's bytes as UTF-8 text; bytes that are not UTF-8, or a NUL, are refused naming the field. */
export function utf8Text(file: FormFile, name: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file.data);
  } catch {
    throw invalid(`${name} '${file.filename.slice(0, 100)}' is not UTF-8 text`);
  }
  if (text.includes('\0')) throw invalid(`${name} '${file.filename.slice(0, 100)}' holds a NUL character`);
  // A byte-order mark is not part of the document.
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** A file name as kept: its last path segment, printable, at most 200 characters (a client may send a full path). */
export function keptFileName(filename: string, fallback: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[^\x20-\x7e]|["]/g, '_').slice(0, 200);
  return clean === '' || clean === '.' || clean === '..' ? fallback : clean;
}
