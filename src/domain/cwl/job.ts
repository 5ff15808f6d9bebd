import { expandDirectives } from './document/directives.js';
import { isFileObject, resolveFileLiteral } from './document/file-literals.js';
import { parseYaml } from './document/parse.js';
import { copyPositions, positionOf } from './document/positions.js';
import { describeValue, isPlainObject } from './document/shorthands.js';
import type { DocumentSource } from './document/source.js';
import { Diagnostics, type CwlIssue } from './errors.js';
import type { Requirement } from './model.js';
import { readRequirements } from './normalize/requirements.js';
import { RecordReader } from './normalize/read.js';
import { CWL_NAMESPACE, expandPrefix } from './uri.js';

/**
 * A job (input) object as read from a file or a request: the values by input name, with every File
 * and Directory's `location`/`path` made absolute against the job file, `format`s with their
 * namespace prefixes expanded (the job's own `$namespaces`, then the process's), literal files
 * (`contents`) and directories (`listing`) kept as they are. The values are not checked against the
 * process's inputs yet: `bindInputs` does that, and fills defaults.
 */
export interface LoadedJob {
  readonly values: Readonly<Record<string, unknown>>;
  /** `cwl:requirements` of the job (CWL v1.2 §Requirements and hints: they override the process's). */
  readonly requirements: readonly Requirement[];
  /** The requirements as the job writes them (under `cwl:requirements`), for a client that passes the job on. */
  readonly requirementsAsWritten?: unknown;
  readonly warnings: readonly CwlIssue[];
}

/** The key a job object gives its requirements under, in its two spellings. */
const REQUIREMENT_KEYS = new Set(['cwl:requirements', `${CWL_NAMESPACE}requirements`]);

/** Reads the job file at `uri` (YAML or JSON; an empty file is an empty job). */
export async function loadJob(
  uri: string,
  source: DocumentSource,
  options: { namespaces?: Readonly<Record<string, string>>; base?: string } = {},
): Promise<LoadedJob> {
  const diagnostics = new Diagnostics();
  const text = await source.read(uri);
  const parsed = text.trim() === '' ? {} : parseYaml(text, uri);
  const reader = { document: async (u: string) => parseYaml(await source.read(u), u), text: (u: string) => source.read(u) };
  const expanded = await expandDirectives(parsed, uri, reader, diagnostics);
  // cwl-runner's --basedir: where relative locations of the job are, instead of the job file's directory.
  const job = readJob(expanded, options.base ?? uri, options.namespaces ? { namespaces: options.namespaces } : {}, diagnostics);
  return job;
}

/**
 * A job object already parsed (a request body): `base` is the URI relative locations resolve
 * against (the job file's, or the data root's).
 */
export function readJob(
  value: unknown,
  base: string,
  options: { namespaces?: Readonly<Record<string, string>> } = {},
  diagnostics = new Diagnostics(),
): LoadedJob {
  if (value !== null && !isPlainObject(value)) {
    diagnostics.error(`a job object must map input names to values, not ${describeValue(value)}`, positionOf(value));
    diagnostics.throwIfErrors();
  }
  const job = (value ?? {}) as Record<string, unknown>;
  const own = isPlainObject(job.$namespaces) ? (job.$namespaces as Record<string, string>) : {};
  const namespaces = { ...options.namespaces, ...own };
  const values: Record<string, unknown> = {};
  copyPositions(job, values);
  let requirements: Requirement[] = [];
  let requirementsAsWritten: unknown;
  for (const [key, item] of Object.entries(job)) {
    if (key.startsWith('$')) continue;
    if (REQUIREMENT_KEYS.has(key) || expandPrefix(key, namespaces) === `${CWL_NAMESPACE}requirements`) {
      requirements = jobRequirements(job, key, namespaces, diagnostics);
      requirementsAsWritten = item;
      continue;
    }
    values[key] = resolveFiles(item, base, namespaces);
  }
  diagnostics.throwIfErrors();
  return { values, requirements, ...(requirementsAsWritten !== undefined ? { requirementsAsWritten } : {}), warnings: diagnostics.warnings };
}

/** Every File and Directory in a value, resolved against `base` (they may sit in records and lists). */
function resolveFiles(value: unknown, base: string, namespaces: Readonly<Record<string, string>>): unknown {
  if (isFileObject(value)) return resolveFileLiteral(value, base, namespaces);
  if (Array.isArray(value)) {
    const out = value.map((item) => resolveFiles(item, base, namespaces));
    copyPositions(value, out);
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  copyPositions(value, out);
  for (const [key, item] of Object.entries(value)) out[key] = resolveFiles(item, base, namespaces);
  return out;
}

function jobRequirements(job: Record<string, unknown>, key: string, namespaces: Readonly<Record<string, string>>, diagnostics: Diagnostics): Requirement[] {
  const list = Array.isArray(job[key])
    ? job[key]
    : isPlainObject(job[key])
      ? Object.entries(job[key]).map(([cls, fields]) => ({ ...(fields as object), class: cls }))
      : undefined;
  if (list === undefined) {
    diagnostics.error(`'${key}' must be a list of requirements, not ${describeValue(job[key])}`, positionOf(job, key));
    return [];
  }
  const context = {
    diagnostics,
    version: 'v1.2' as const,
    namespaces,
    schemas: [],
    index: new Map<string, object>(),
    namedTypes: new Map(),
    runProcess: () => undefined,
    embeddedProcess: () => undefined,
  };
  const holder = { requirements: list };
  copyPositions(job, holder);
  return readRequirements(new RecordReader(holder, 'the job object', context), 'requirements').known;
}
