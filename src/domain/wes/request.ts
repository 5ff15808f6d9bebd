import type { FromSchema } from 'json-schema-to-ts';
import type { wesRunForm } from '../../contract/wes.js';
import { parseExactJson } from '../../contract/exact-json.js';
import { invalid } from '../errors.js';
import { describe, isObject, type JsonObject } from '../json.js';
import type { MultipartForm } from '../multipart-form.js';

/**
 * A WES RunRequest as a multipart form posts it (docs/ga4gh.md, "WES"), read and checked: every field that is JSON in
 * a string is parsed here, so that a malformed one is a 400 naming it before anything is looked up or stored.
 */

export type WesRunForm = FromSchema<typeof wesRunForm> & { workflow_attachment?: Array<{ name: string; size: number; data?: Buffer }> };

/** The workflow types gdflow runs, as service-info lists them; a posted type is matched without regard to case. */
export const WES_WORKFLOW_TYPES = { CWL: ['v1.0', 'v1.1', 'v1.2'], GeneDock: ['1.0'] } as const;
export type WesWorkflowType = keyof typeof WES_WORKFLOW_TYPES;

/** What a workflow_url names. */
export type WesWorkflowUrl =
  | { kind: 'attachment'; path: string; fragment: string }
  | { kind: 'data'; path: string; fragment: string }
  | { kind: 'remote'; url: string; fragment: string }
  | { kind: 'registered'; name: string; version: number | undefined };

export interface WesRunRequest {
  type: WesWorkflowType;
  typeVersion: string | undefined;
  params: JsonObject;
  tags: Record<string, string>;
  engineParameters: Record<string, string>;
  url: WesWorkflowUrl;
  /** The attached files by relative path. */
  attachments: Map<string, Buffer>;
  /** The request as posted (its JSON fields parsed), which the run's log shows. */
  asPosted: JsonObject;
}

export const MAX_ATTACHMENTS = 1000;
const ENGINE_PARAMETERS = new Set(['task_name']);

/**
 * A posted form as the run request's fields: each field once (a field sent as a file part, as Python's requests sends
 * `files=` entries, is read as its text), workflow_attachment files repeated (each under its filename, its relative
 * path). A field given twice, or holding a NUL, is refused naming it.
 */
export function fieldsOfForm(form: MultipartForm): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const attachments: Array<{ name: string; size: number; data: Buffer }> = [];
  for (const part of form.parts) {
    if (part.name === 'workflow_attachment' && part.file) {
      attachments.push({ name: part.file.filename, size: part.file.data.length, data: part.file.data });
      continue;
    }
    const text = part.file ? part.file.data.toString('utf8') : part.text;
    if (part.name in fields) throw invalid(`${part.name.slice(0, 64)} is given more than once`);
    if (text.includes('\0') || /\\u0000/.test(text)) throw invalid(`${part.name.slice(0, 64)} holds a NUL character, which no name, text or path may contain`);
    fields[part.name] = text;
  }
  if (attachments.length > 0) fields.workflow_attachment = attachments;
  return fields;
}

export function readRunForm(form: WesRunForm): WesRunRequest {
  const type = workflowType(form.workflow_type);
  const typeVersion = form.workflow_type_version === undefined || form.workflow_type_version === '' ? undefined : form.workflow_type_version;
  if (typeVersion !== undefined && !(WES_WORKFLOW_TYPES[type] as readonly string[]).includes(typeVersion)) {
    throw invalid(`workflow_type_version '${typeVersion.slice(0, 32)}' is not a version of ${type} gdflow runs (${WES_WORKFLOW_TYPES[type].join(', ')})`);
  }
  if (form.workflow_engine !== undefined && form.workflow_engine !== '' && form.workflow_engine.toLowerCase() !== 'gdflow') {
    throw invalid(`workflow_engine '${form.workflow_engine.slice(0, 64)}' is not gdflow, the only engine of this server`);
  }
  const params = jsonObject(form.workflow_params, 'workflow_params');
  const tags = stringMap(form.tags, 'tags');
  const engineParameters = stringMap(form.workflow_engine_parameters, 'workflow_engine_parameters');
  const attachments = readAttachments(form.workflow_attachment ?? []);
  const url = workflowUrl(form.workflow_url, attachments);
  if (type === 'GeneDock' && url.kind !== 'registered')
    throw invalid(`workflow_url of a GeneDock run must be workflow:<name>[/<version>], a workflow of the project, not '${form.workflow_url.slice(0, 200)}'`);
  const asPosted: JsonObject = {
    workflow_params: params,
    workflow_type: type,
    ...(typeVersion !== undefined ? { workflow_type_version: typeVersion } : {}),
    tags,
    workflow_engine_parameters: engineParameters,
    workflow_url: form.workflow_url,
  };
  return { type, typeVersion, params, tags, engineParameters, url, attachments, asPosted };
}

/** The task name a run asks for in its engine parameters, if any (other keys are kept and not used). */
export function taskNameOf(request: WesRunRequest): string | undefined {
  const name = request.engineParameters.task_name;
  return name === undefined || name === '' ? undefined : name;
}

export const knownEngineParameters = (): string[] => [...ENGINE_PARAMETERS];

function workflowType(value: string): WesWorkflowType {
  const found = (Object.keys(WES_WORKFLOW_TYPES) as WesWorkflowType[]).find((type) => type.toLowerCase() === value.trim().toLowerCase());
  if (!found) throw invalid(`workflow_type '${value.slice(0, 64)}' is not one gdflow runs: CWL or GeneDock`);
  return found;
}

function jsonObject(value: string | object | undefined, field: string): JsonObject {
  if (value === undefined) return {};
  if (typeof value === 'object') {
    if (!isObject(value)) throw invalid(`${field} must be a JSON object, not ${describe(value)}`);
    return value;
  }
  if (value.trim() === '') return {};
  let parsed: unknown;
  try {
    // Exact, as the JSON bodies of GeneDock's routes: a job's long beyond 2^53 stays the integer the client sent.
    parsed = parseExactJson(value);
  } catch (error) {
    throw invalid(`${field} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(parsed)) throw invalid(`${field} must be a JSON object, not ${describe(parsed)}`);
  return parsed;
}

function stringMap(value: string | object | undefined, field: string): Record<string, string> {
  const object = jsonObject(value, field);
  for (const [key, item] of Object.entries(object)) {
    if (typeof item !== 'string') throw invalid(`${field}.${key.slice(0, 64)} must be a string, not ${describe(item)}`);
  }
  return object as Record<string, string>;
}

/**
 * The attachments by relative path: a path is relative, normalised (no `.` or `..` segment, no empty one), without a
 * NUL or backslash, and names one file only once.
 */
function readAttachments(parts: ReadonlyArray<{ name: string; data?: Buffer }>): Map<string, Buffer> {
  if (parts.length > MAX_ATTACHMENTS) throw invalid(`workflow_attachment is given ${parts.length} times; the limit is ${MAX_ATTACHMENTS}`);
  const out = new Map<string, Buffer>();
  for (const part of parts) {
    const name = part.name.replace(/^(\.\/)+/, '');
    const where = `workflow_attachment '${part.name.slice(0, 200)}'`;
    if (name === '' || name.length > 1024) throw invalid(`${where}: a file part needs a filename (its relative path) of 1 to 1024 characters`);
    if (name.startsWith('/') || /[\\\0]/.test(name) || name.split('/').some((s) => s === '' || s === '.' || s === '..')) {
      throw invalid(`${where}: the filename must be a relative path without '.', '..' or empty segments`);
    }
    if (out.has(name)) throw invalid(`${where} is attached twice`);
    if (part.data === undefined) throw invalid(`${where}: files are attached in a multipart/form-data form, not in a JSON body`);
    out.set(name, part.data);
  }
  return out;
}

function workflowUrl(value: string, attachments: Map<string, Buffer>): WesWorkflowUrl {
  const registered = /^workflow:([A-Za-z][A-Za-z0-9_-]*)(?:\/([1-9][0-9]{0,8}))?$/.exec(value);
  if (registered) return { kind: 'registered', name: registered[1]!, version: registered[2] === undefined ? undefined : Number(registered[2]) };
  if (value.startsWith('workflow:')) throw invalid(`workflow_url '${value.slice(0, 200)}' must be workflow:<name> or workflow:<name>/<version>`);
  const hash = value.indexOf('#');
  const [path, fragment] = hash < 0 ? [value, ''] : [value.slice(0, hash), value.slice(hash)];
  if (path.startsWith('gdflow:')) return { kind: 'data', path, fragment };
  if (/^https?:\/\//i.test(path)) {
    try {
      return { kind: 'remote', url: new URL(path).href, fragment };
    } catch {
      throw invalid(`workflow_url '${value.slice(0, 200)}' is not a valid URL`);
    }
  }
  const relative = path.replace(/^(\.\/)+/, '');
  if (attachments.has(relative)) return { kind: 'attachment', path: relative, fragment };
  const attached = [...attachments.keys()].slice(0, 10).join(', ');
  throw invalid(
    `workflow_url '${value.slice(0, 200)}' is not the relative path of an attached file${attached ? ` (attached: ${attached})` : ' (nothing is attached)'}, ` +
      'gdflow:<data path> of a document in the data store, an http(s) URL, or workflow:<name>[/<version>] of a registered workflow',
  );
}
