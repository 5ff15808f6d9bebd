import { inputDefinition, outputDefinition, parameterDefinition } from '../../contract/tools.js';
import { invalid } from '../errors.js';
import {
  describe,
  expectObject,
  formatList,
  isObject,
  optionalBoolean,
  optionalCount,
  optionalNumber,
  optionalObject,
  optionalString,
  type JsonObject,
} from '../json.js';
import { unknownMemberReason } from '../nearest-name.js';
import { jobFilePath, renderCommand, RenderError } from '../render/index.js';
import { parameterValueProblem } from './parameter-values.js';
import type { ParameterDefinition, ParameterType, PortDefinition, Resources, ToolDefinition } from './types.js';
import { checkTemplateReferences } from './template-refs.js';
import { DEFAULT_RETRY_POLICY, readRetryPolicy } from './retry-policy.js';

export { parameterValueProblem } from './parameter-values.js';
export type { ParameterDefinition, ParameterType, PortDefinition, Resources, ToolDefinition } from './types.js';

/**
 * The tool definition (INTERFACE.md 2.2): validation at PutTool, and the typed reading of a
 * stored definition that workflows and the engine use.
 */

const PARAMETER_TYPES: Record<string, ParameterType> = {
  string: 'string',
  str: 'string',
  integer: 'integer',
  int: 'integer',
  number: 'number',
  float: 'number',
  flag: 'flag',
  boolean: 'flag',
  bool: 'flag',
};

/** Members the server adds when a tool is read; a client may send them back and we ignore them. */
export const READ_ONLY_MEMBERS = ['_id', 'account', 'modified_time', 'modified_ts', 'new', 'status', 'type', 'version'] as const;

export const DEFAULT_RESOURCES: Resources = { cpu: 1, memMb: 1024, diskMb: 1024, network: false };

const MEMBER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const SIZE = /^([0-9]+(?:\.[0-9]+)?)\s*([kmgt])(i?b)?$/i;

/** `4096m`, `4g`, `1.5G`, `512MiB` → mebibytes. */
export function parseSizeMb(text: string): number | undefined {
  const match = SIZE.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  const factor = unit === 'k' ? 1 / 1024 : unit === 'm' ? 1 : unit === 'g' ? 1024 : 1024 * 1024;
  const mb = Math.ceil(value * factor);
  return mb > 0 ? mb : undefined;
}

// A Docker image reference (registry/path:tag@digest), or a bare image id as GeneDock used.
const IMAGE_REFERENCE =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

export const isImageReference = (value: string): boolean => value.length <= 255 && IMAGE_REFERENCE.test(value);

/** A member schema of the contract: the members it takes, and what it is called in refusals. */
interface MemberSchema {
  title: string;
  properties: object;
}

const portItem: MemberSchema = inputDefinition.properties.item;

/** Refuse a member the definition does not take (a misspelt `fromats` would otherwise be kept and ignored). */
function refuseUnknownMembers(def: JsonObject, path: string, schema: MemberSchema): void {
  const known = Object.keys(schema.properties);
  for (const member of Object.keys(def)) {
    if (!Object.hasOwn(schema.properties, member)) throw invalid(unknownMemberReason(path, member, known, schema.title));
  }
}

/** Inputs list their formats; outputs give them as one comma-separated string (INTERFACE.md 2.2). */
function checkFormats(kind: 'inputs' | 'outputs', formats: unknown, path: string): void {
  if (formats === undefined) return;
  if (kind === 'outputs') {
    if (typeof formats !== 'string') throw invalid(`${path}.formats must be a string (format names separated by commas), not ${describe(formats)}`);
    return;
  }
  if (!Array.isArray(formats)) throw invalid(`${path}.formats must be a list of format names, not ${describe(formats)}`);
  formats.forEach((f, i) => {
    if (typeof f !== 'string' || f.trim() === '') throw invalid(`${path}.formats[${i}] must be a format name, not ${describe(f)}`);
  });
}

function readPort(kind: 'inputs' | 'outputs', name: string, raw: unknown, strict: boolean): PortDefinition {
  const path = `${kind}.${name}`;
  const def = expectObject(raw, path);
  if (strict) refuseUnknownMembers(def, path, kind === 'inputs' ? inputDefinition : outputDefinition);
  const type = optionalString(def.type, `${path}.type`) ?? 'file';
  if (strict && type !== 'file') throw invalid(`${path}.type must be 'file', not '${type}'`);
  if (strict) checkFormats(kind, def.formats, path);
  const required = optionalBoolean(def.required, `${path}.required`) ?? false;
  const minitems = optionalCount(def.minitems, `${path}.minitems`) ?? (required ? 1 : 0);
  const maxitems = optionalCount(def.maxitems, `${path}.maxitems`) ?? Math.max(1, minitems);
  if (strict && maxitems < minitems) throw invalid(`${path}.maxitems (${maxitems}) is smaller than minitems (${minitems})`);
  if (strict && required && maxitems === 0) throw invalid(`${path} is required but maxitems is 0`);
  const item = optionalObject(def.item, `${path}.item`);
  if (strict) refuseUnknownMembers(item, `${path}.item`, portItem);
  const streamKey = kind === 'inputs' ? 'stdin' : 'stdout';
  return {
    name,
    formats: formatList(def.formats),
    minitems,
    maxitems,
    required,
    prefix: optionalString(def.prefix, `${path}.prefix`) ?? '',
    separator: optionalString(def.separator, `${path}.separator`) ?? '',
    itemSeparator: optionalString(item.separator, `${path}.item.separator`) ?? ' ',
    stream: optionalBoolean(def[streamKey], `${path}.${streamKey}`) ?? false,
    hint: optionalString(def.hint, `${path}.hint`) ?? '',
  };
}

function readParameter(name: string, raw: unknown, strict: boolean): ParameterDefinition {
  const path = `parameters.${name}`;
  const def = expectObject(raw, path);
  if (strict) refuseUnknownMembers(def, path, parameterDefinition);
  const typeName = optionalString(def.type, `${path}.type`) ?? 'string';
  const type = PARAMETER_TYPES[typeName.toLowerCase()];
  if (!type) throw invalid(`${path}.type '${typeName}' is not one of string, integer, number, float, flag, boolean`);
  const minvalue = optionalNumber(def.minvalue ?? def.min, `${path}.minvalue`);
  const maxvalue = optionalNumber(def.maxvalue ?? def.max, `${path}.maxvalue`);
  if (strict && minvalue !== undefined && maxvalue !== undefined && minvalue > maxvalue) {
    throw invalid(`${path}.minvalue (${minvalue}) is greater than maxvalue (${maxvalue})`);
  }
  const parameter: ParameterDefinition = {
    name,
    type,
    typeName,
    default: def.default ?? def.value ?? (type === 'flag' ? false : null),
    required: optionalBoolean(def.required, `${path}.required`) ?? false,
    variable: optionalBoolean(def.variable, `${path}.variable`) ?? true,
    hint: optionalString(def.hint, `${path}.hint`) ?? '',
    prefix: optionalString(def.prefix, `${path}.prefix`) ?? '',
    separator: optionalString(def.separator, `${path}.separator`) ?? (type === 'flag' ? '' : ' '),
    ...(minvalue !== undefined ? { minvalue } : {}),
    ...(maxvalue !== undefined ? { maxvalue } : {}),
  };
  if (strict && parameter.default !== null) {
    const problem = parameterValueProblem(parameter, parameter.default);
    if (problem) throw invalid(`${path} default value ${problem}`);
  }
  return parameter;
}

function readMembers<T>(
  value: unknown,
  path: 'inputs' | 'outputs' | 'parameters',
  strict: boolean,
  read: (name: string, raw: unknown) => T,
): Record<string, T> {
  const members = optionalObject(value, path);
  const result: Record<string, T> = {};
  for (const [name, raw] of Object.entries(members)) {
    if (strict && !MEMBER_NAME.test(name)) {
      throw invalid(`${path} name '${name}' must start with a letter or '_' and hold only letters, digits and '_'`);
    }
    result[name] = read(name, raw);
  }
  return result;
}

function readResources(requirements: JsonObject, strict: boolean): Resources {
  const raw = optionalObject(requirements.resources, 'requirements.resources');
  const resources = { ...DEFAULT_RESOURCES };
  if (raw.cpu !== undefined && raw.cpu !== null) {
    if (typeof raw.cpu !== 'number' || !Number.isInteger(raw.cpu) || raw.cpu < 1 || raw.cpu > 1024) {
      throw invalid(`requirements.resources.cpu must be an integer from 1 to 1024, not ${describe(raw.cpu)}`);
    }
    resources.cpu = raw.cpu;
  }
  for (const key of ['mem', 'disk'] as const) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    const mb = typeof value === 'string' ? parseSizeMb(value) : undefined;
    if (mb === undefined) throw invalid(`requirements.resources.${key} must be a size such as '4096m' or '4g', not ${describe(value)}`);
    if (key === 'mem') resources.memMb = mb;
    else resources.diskMb = mb;
  }
  resources.network = optionalBoolean(raw.network, 'requirements.resources.network') ?? false;
  if (strict && raw.port !== undefined && raw.port !== null && !Array.isArray(raw.port)) {
    throw invalid(`requirements.resources.port must be a list, not ${describe(raw.port)}`);
  }
  return resources;
}

function read(configs: JsonObject, strict: boolean): ToolDefinition {
  const requirements = optionalObject(configs.requirements, 'requirements');
  const container = optionalObject(requirements.container, 'requirements.container');
  const image = optionalString(container.image, 'requirements.container.image') ?? '';
  if (strict) {
    if (configs.requirements === undefined || configs.requirements === null) throw invalid('requirements is required (container.image and resources)');
    if (image === '') throw invalid('requirements.container.image is required');
    if (!isImageReference(image)) throw invalid(`requirements.container.image '${image.slice(0, 100)}' is not an image reference such as 'debian:bookworm'`);
    const containerType = optionalString(container.type, 'requirements.container.type') ?? 'docker';
    if (containerType !== 'docker') throw invalid(`requirements.container.type must be 'docker', not '${containerType}'`);
  }
  const inputs = readMembers(configs.inputs, 'inputs', strict, (n, r) => readPort('inputs', n, r, strict));
  const outputs = readMembers(configs.outputs, 'outputs', strict, (n, r) => readPort('outputs', n, r, strict));
  const parameters = readMembers(configs.parameters, 'parameters', strict, (n, r) => readParameter(n, r, strict));
  if (strict) {
    const stdin = Object.values(inputs).filter((p) => p.stream);
    if (stdin.length > 1) throw invalid(`only one input may be stdin, but ${stdin.map((p) => p.name).join(' and ')} are`);
    const stdout = Object.values(outputs).filter((p) => p.stream);
    if (stdout.length > 1) throw invalid(`only one output may be stdout, but ${stdout.map((p) => p.name).join(' and ')} are`);
    for (const p of [...stdin, ...stdout]) {
      if (p.maxitems !== 1) throw invalid(`${p.stream && stdin.includes(p) ? 'inputs' : 'outputs'}.${p.name} is a stream and must have maxitems 1`);
    }
  }
  return {
    alias: optionalString(configs.alias, 'alias') ?? '',
    category: optionalString(configs.category, 'category') ?? '',
    description: optionalString(configs.description, 'description') ?? '',
    cmdTemplate: optionalString(configs.cmd_template, 'cmd_template') ?? '',
    image,
    inputs,
    outputs,
    parameters,
    resources: readResources(requirements, strict),
    retry: readRetry(configs.retry, strict),
    callCaching: optionalBoolean(configs.call_caching, 'call_caching') ?? true,
  };
}

function readRetry(raw: unknown, strict: boolean): JsonObject | null {
  if (raw === undefined || raw === null) return null;
  // Checked now, so that a job never meets a policy it cannot read; read again with the server's default under it.
  if (strict) readRetryPolicy(raw, 'retry', DEFAULT_RETRY_POLICY, parseSizeMb);
  return isObject(raw) ? raw : null;
}

/** Read a stored (already validated) definition. */
export function readToolDefinition(configs: JsonObject | null): ToolDefinition {
  return read(configs ?? {}, false);
}

export interface ValidatedDefinition {
  /** What is stored: the definition as sent, without the members the server adds on read. */
  stored: JsonObject;
  definition: ToolDefinition;
}

/**
 * Validate a whole definition for PutTool. Every failure is an InvalidInput whose reason names
 * the member (`inputs.reads.maxitems`, `requirements.resources.mem`, ...).
 */
export function validateToolDefinition(raw: unknown, toolName: string): ValidatedDefinition {
  if (raw === undefined || raw === null) throw invalid('configs is required');
  if (!isObject(raw)) throw invalid(`configs must be an object, not ${describe(raw)}`);
  const stored: JsonObject = { ...raw };
  for (const key of READ_ONLY_MEMBERS) delete stored[key];
  const name = optionalString(stored.name, 'configs.name');
  if (name !== undefined && name !== toolName) throw invalid(`configs.name '${name.slice(0, 140)}' differs from the tool name '${toolName}'`);
  stored.name = toolName;
  for (const key of ['alias', 'category', 'description', 'homepage', 'document_author'] as const) optionalString(stored[key], key);
  if (stored.tutorial !== undefined && stored.tutorial !== null) optionalString(stored.tutorial, 'tutorial');
  if (stored.cmd_template === null) stored.cmd_template = '';
  const definition = read(stored, true);
  checkTemplateReferences(definition.cmdTemplate, {
    inputs: new Set(Object.keys(definition.inputs)),
    outputs: new Set(Object.keys(definition.outputs)),
    parameters: new Set(Object.keys(definition.parameters)),
  });
  trialRender(definition);
  return { stored, definition };
}

/**
 * A trial render through renderCommand, the function every job's command is rendered with, with sample values: each
 * input and output its minimum number of files (at least one) at the paths a job gives them, each parameter its
 * default. A failure no task's values could avoid is refused now rather than failing every task later: a render
 * limit (docs/templates.md), or a user value placed where no value can be quoted (a file path inside shell
 * arithmetic, a value right after `$`, ...). Failures that depend on the values (a string parameter inside shell
 * arithmetic, the template's own logic failing on a default of null) are left to the task that brings them.
 */
function trialRender(definition: ToolDefinition): void {
  const sample = (kind: 'inputs' | 'outputs', port: PortDefinition): string[] =>
    Array.from({ length: Math.min(Math.max(port.minitems, 1), 100) }, (_, i) => jobFilePath(kind, port.name, `sample${i}`));
  const files = (kind: 'inputs' | 'outputs', ports: Record<string, PortDefinition>) =>
    Object.fromEntries(Object.values(ports).map((p) => [p.name, sample(kind, p)]));
  const parameters = Object.fromEntries(Object.values(definition.parameters).map((p) => [p.name, p.default ?? null]));
  try {
    renderCommand({ tool: definition, inputs: files('inputs', definition.inputs), outputs: files('outputs', definition.outputs), parameters });
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    if (error.failure === 'value') return;
    const tried = error.failure === 'template' ? '' : " (tried with the smallest inputs and the parameters' defaults)";
    throw invalid(`${error.message}${tried}`);
  }
}
