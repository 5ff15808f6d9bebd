/**
 * A multipart/form-data body as the server parses it (server/multipart.ts): every part in order, and by name the
 * first of each. Each route reads it its own way: the wdl/ routes take each field once (wdl/workflows/form.ts), WES
 * takes repeated workflow_attachment files (wes/request.ts).
 */

export interface FormFile {
  /** The file name the client gave (gwc: the local file's name). */
  filename: string;
  data: Buffer;
}

/** One part of a form, in the order sent: a text field, or a file (a part with a filename). */
export type FormPart = { name: string; text: string; file?: undefined } | { name: string; file: FormFile; text?: undefined };

/**
 * A parsed multipart/form-data body: every part in order (a name may come more than once: WES's workflow_attachment),
 * and by name the first text field and the first file of each name, for the routes that take each name once.
 */
export interface MultipartForm {
  parts: FormPart[];
  fields: Record<string, string>;
  files: Record<string, FormFile>;
  /** The first name given more than once, if any. */
  repeated?: string;
}

export function isMultipartForm(body: unknown): body is MultipartForm {
  return typeof body === 'object' && body !== null && 'fields' in body && 'files' in body && Object.getPrototypeOf(body) === FORM_PROTOTYPE;
}

/** Forms are made with this prototype, so that a JSON body shaped like one is never taken for one. */
const FORM_PROTOTYPE = Object.freeze(Object.create(null) as object);

export function newForm(): MultipartForm {
  const form = Object.create(FORM_PROTOTYPE) as MultipartForm;
  form.fields = Object.create(null) as Record<string, string>;
  form.files = Object.create(null) as Record<string, FormFile>;
  form.parts = [];
  return form;
}

/** Add a part to a form as the parser reads it. */
export function addPart(form: MultipartForm, part: FormPart): void {
  form.parts.push(part);
  if (part.name in form.fields || part.name in form.files) form.repeated ??= part.name;
  else if (part.file) form.files[part.name] = part.file;
  else form.fields[part.name] = part.text;
}
