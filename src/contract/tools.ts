/**
 * The tool operations' schemas (INTERFACE.md 2.1–2.4, 4.1–4.7). The tool definition is typed member by member as
 * INTERFACE.md 2.2 types it. Its top level takes members it does not name (the clients send back read-only
 * members such as `_id`, `status` and `version` from GetTool, docs/wire.md §7, and GeneDock documents carry
 * `package` and others); an input, output or parameter definition takes only its own members, so that a misspelt
 * one (`fromats`) is refused rather than kept and ignored. What the types cannot say (names, formats, the
 * template's references and limits) the domain checks (domain/tools/definition.ts).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { epochSeconds, version } from './common.js';

const text = { type: 'string' } as const;

const portMembers = {
  name: text,
  type: { type: 'string', description: 'file' },
  hint: text,
  prefix: text,
  separator: text,
  item: { type: 'object', title: 'item', properties: { separator: text }, additionalProperties: false },
  minitems: { type: 'integer' },
  maxitems: { type: 'integer' },
  required: { type: 'boolean' },
} as const;

export const inputDefinition = {
  type: 'object',
  title: 'input definition',
  properties: {
    ...portMembers,
    formats: { type: 'array', items: { type: 'string' }, description: 'the format names the input accepts (file name endings); empty: any' },
    stdin: { type: 'boolean', description: "the input is connected to the command's stdin" },
  },
  additionalProperties: false,
} as const;

export const outputDefinition = {
  type: 'object',
  title: 'output definition',
  properties: {
    ...portMembers,
    formats: { type: 'string', description: 'the format names the output is written in, comma-separated (`bam` or `bam,bai`)' },
    stdout: { type: 'boolean', description: "the command's stdout is written to the output" },
  },
  additionalProperties: false,
} as const;

export const parameterDefinition = {
  type: 'object',
  title: 'parameter definition',
  properties: {
    name: text,
    type: { type: 'string', description: 'string, integer (int), number (float), flag (boolean, bool)' },
    default: { description: 'the value when the run parameters give none' },
    value: { description: 'the same as default (GeneDock templates write it so)' },
    hint: text,
    required: { type: 'boolean' },
    variable: { type: 'boolean' },
    minvalue: { type: 'number' },
    maxvalue: { type: 'number' },
    min: { type: 'number', description: 'the same as minvalue' },
    max: { type: 'number', description: 'the same as maxvalue' },
    prefix: text,
    separator: text,
  },
  additionalProperties: false,
} as const;

/** INTERFACE.md 2.2. */
export const toolDefinition = {
  type: 'object',
  description: 'A tool definition (INTERFACE.md 2.2); docs/templates.md for cmd_template.',
  properties: {
    name: text,
    alias: text,
    category: text,
    description: text,
    homepage: text,
    tutorial: { type: ['string', 'null'] },
    cmd_template: { type: ['string', 'null'], description: 'a Jinja2 template (docs/templates.md); empty: assembled from the definitions' },
    inputs: { type: ['object', 'null'], additionalProperties: inputDefinition },
    outputs: { type: ['object', 'null'], additionalProperties: outputDefinition },
    parameters: { type: ['object', 'null'], additionalProperties: parameterDefinition },
    retry: {
      type: ['object', 'null'],
      title: 'retry policy',
      description: 'when a failed job runs again (docs/tasks.md, "Retries"); absent: the server default',
      properties: {
        max_attempts: { type: 'integer', minimum: 1, maximum: 10 },
        backoff_seconds: { type: 'number', minimum: 0, maximum: 3600 },
        on: { type: 'array', items: { type: 'string', enum: ['exit_code', 'out_of_memory', 'timeout', 'lost_worker', 'executor_error'] } },
        memory_factor: { type: 'number', minimum: 1, maximum: 16 },
        max_memory: { type: ['string', 'number'], description: 'a size with a unit (16g), or MiB' },
      },
      additionalProperties: false,
    },
    call_caching: { type: 'boolean', description: 'false: never reuse earlier results for this tool (docs/tasks.md, "Call caching")' },
    requirements: {
      type: 'object',
      properties: {
        container: {
          type: 'object',
          properties: { image: { type: 'string', description: 'an image reference with tag' }, type: { type: 'string', description: 'docker' } },
        },
        resources: {
          type: 'object',
          properties: {
            cpu: { type: 'integer' },
            mem: { type: 'string', description: 'a size with a unit: 512m, 4g, 1.5G' },
            disk: { type: 'string', description: 'a size with a unit' },
            network: { type: 'boolean' },
            port: { type: 'array' },
          },
        },
      },
    },
  },
} as const;

export const createToolBody = {
  type: 'object',
  properties: {
    tool_name: { type: 'string', description: '3 to 128 letters, digits, - and _, starting with a letter' },
    description: text,
    tool_version: { ...version, description: 'the next version (1 for a new tool); absent: the next one' },
  },
  required: ['tool_name'],
} as const;

export const putToolBody = {
  type: 'object',
  properties: {
    tool_version: version,
    description: text,
    configs: toolDefinition,
  },
  required: ['tool_version'],
} as const;

/** The bodies as their schemas let them through: what the domain's tool operations take (domain/tools/service.ts). */
export type CreateToolBody = FromSchema<typeof createToolBody>;
export type PutToolBody = FromSchema<typeof putToolBody>;

const summaryMembers = {
  tool_url: text,
  tool_name: text,
  tool_version: { type: 'integer' },
  tool_id: { type: 'string', description: '24 hex digits' },
  description: text,
  status: { type: 'string', enum: ['checked', 'unchecked'] },
  type: { type: 'string', enum: ['public', 'private', 'system'] },
  category: text,
  authorized_methods: { type: 'array', items: { type: 'string' } },
  modified_time: epochSeconds,
  created_time: epochSeconds,
} as const;

export const toolSummary = { type: 'object', properties: summaryMembers, required: ['tool_name', 'tool_version', 'tool_id'] } as const;

export const toolList = {
  type: 'object',
  properties: {
    items: { type: 'array', description: 'one list per tool name, one summary per version', items: { type: 'array', items: toolSummary } },
    tool_url: text,
  },
  required: ['items'],
} as const;

export const toolAsRead = {
  type: 'object',
  properties: {
    description: text,
    configs: { ...toolDefinition, description: 'the definition with the read-only members _id, account, version, status, type, modified_time, ...' },
    status: { type: 'string', enum: ['checked', 'unchecked'] },
    modified_time: epochSeconds,
    created_time: epochSeconds,
  },
} as const;

export const getToolResponse = {
  type: 'object',
  properties: { tools: { type: 'array', items: toolAsRead } },
  required: ['tools'],
} as const;

export const toolParameterTemplate = {
  type: 'object',
  properties: { parameter: { type: 'array', items: { type: 'object', additionalProperties: true } } },
  required: ['parameter'],
} as const;

export const toolDetailsResponse = {
  type: 'array',
  items: {
    type: 'object',
    properties: { details: { type: 'object', additionalProperties: true }, modified_time: epochSeconds, tool_name: text },
  },
} as const;
