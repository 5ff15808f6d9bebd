/**
 * GA4GH TES 1.1 (docs/ga4gh.md) as JSON Schemas: the task a client sends, the views gdflow answers with, the list's
 * query and the service info. Field names and meanings are TES's own; what gdflow adds or limits is said in the
 * descriptions.
 */
import { TES_STATES } from './ga4gh-states.js';

export { TES_STATES };

const text = (description: string) => ({ type: 'string', description }) as const;
const stringMap = (description: string) => ({ type: 'object', additionalProperties: { type: 'string' }, description }) as const;
const fileType = { enum: ['FILE', 'DIRECTORY'], description: 'FILE (the default) or DIRECTORY' } as const;

/** The GA4GH error body (WES's ErrorResponse; TES 1.1 defines none of its own), of every 4xx and 5xx under /ga4gh/. */
export const ga4ghError = {
  type: 'object',
  required: ['msg', 'status_code'],
  properties: { msg: text('what is wrong, naming the field'), status_code: { type: 'integer', description: 'the HTTP status' } },
  additionalProperties: false,
} as const;

export const tesExecutor = {
  type: 'object',
  required: ['image', 'command'],
  properties: {
    image: text(
      'the container image (all executors of a task name the same one on gdflow); the podman, docker and Slurm (podman) executors run in it, bwrap and host ignore it',
    ),
    command: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'argv: the program and its arguments, never read by a shell' },
    workdir: text('absolute path the command runs in (default /var/data, the job directory)'),
    stdin: text('absolute path of a file piped to the command'),
    stdout: text("absolute path the command's standard output is written to"),
    stderr: text("absolute path the command's standard error is written to"),
    env: stringMap('environment variables'),
    ignore_error: { type: 'boolean', description: 'go on with the next executor when this one exits non-zero' },
  },
} as const;

export const tesInput = {
  type: 'object',
  required: ['path'],
  properties: {
    name: text('a name'),
    description: text('a description'),
    url: text(
      "gdflow:/data/name (the caller's data store; gdflow://public/name for public data), file:///path under a root the operator allows, or http(s):// when the operator allows it",
    ),
    path: text('absolute path in the container'),
    type: fileType,
    content: text("the file's content (UTF-8, up to 128 KiB); url is then ignored"),
    streamable: { type: 'boolean', description: 'accepted; inputs are always staged whole' },
  },
} as const;

export const tesOutput = {
  type: 'object',
  required: ['url', 'path'],
  properties: {
    name: text('a name'),
    description: text('a description'),
    url: text(
      "where the file (or, for a DIRECTORY or a pattern, the files below it) is stored: gdflow:/name in the caller's data store, or file:///path under an output root",
    ),
    path: text('absolute path in the container; with *, ? or [...] a pattern whose every match is an output'),
    path_prefix: text("a pattern's prefix, removed from each match to name it below url (default: the directory before the first wildcard)"),
    type: fileType,
  },
} as const;

export const tesResources = {
  type: 'object',
  properties: {
    cpu_cores: { type: 'integer', minimum: 0, description: 'CPU cores (default 1)' },
    preemptible: { type: 'boolean', description: 'accepted and ignored' },
    ram_gb: { type: 'number', minimum: 0, description: 'memory limit in GB (default: none)' },
    disk_gb: { type: 'number', minimum: 0, description: 'accepted and recorded; not enforced' },
    zones: { type: 'array', items: { type: 'string' }, description: 'accepted and ignored' },
    backend_parameters: stringMap('gdflow knows `network` ("true": the task may use the network)'),
    backend_parameters_strict: { type: 'boolean', description: 'true: a backend parameter gdflow does not know is an error (400)' },
  },
} as const;

/** POST /tasks: a TES task. Fields a client sets that only the server sets (id, state, logs, creation_time) are ignored. */
export const tesTaskBody = {
  type: 'object',
  required: ['executors'],
  properties: {
    name: text("a name (free text; the gdflow task's name is made from it)"),
    description: text('a description'),
    inputs: { type: 'array', items: tesInput },
    outputs: { type: 'array', items: tesOutput },
    resources: tesResources,
    executors: { type: 'array', minItems: 1, items: tesExecutor },
    volumes: { type: 'array', items: { type: 'string' }, description: 'absolute paths of directories shared by the executors' },
    tags: stringMap('tags, which GET /tasks can filter by'),
  },
} as const;

const executorLog = {
  type: 'object',
  required: ['exit_code'],
  properties: {
    start_time: text('RFC 3339'),
    end_time: text('RFC 3339'),
    stdout: text('the last 64 KiB of its standard output'),
    stderr: text('the last 64 KiB of its standard error'),
    exit_code: { type: 'integer' },
  },
} as const;

const outputFileLog = {
  type: 'object',
  required: ['url', 'path', 'size_bytes'],
  properties: { url: text('where it was stored'), path: text('its path in the container'), size_bytes: text('its size, as a decimal string') },
} as const;

const taskLog = {
  type: 'object',
  required: ['logs', 'outputs'],
  properties: {
    logs: { type: 'array', items: executorLog },
    metadata: stringMap("gdflow's task and job ids, the job's attempt, image digest and cache hit"),
    start_time: text('RFC 3339'),
    end_time: text('RFC 3339'),
    outputs: { type: 'array', items: outputFileLog },
    system_logs: { type: 'array', items: { type: 'string' }, description: "the job's reason and events (FULL view only)" },
  },
} as const;

/** A task in a view: MINIMAL has id and state only; BASIC leaves out inputs' content and the logs' stdout, stderr and system logs. */
export const tesTaskView = {
  type: 'object',
  required: ['id', 'state'],
  properties: {
    id: text('the gdflow task id'),
    state: { enum: TES_STATES },
    name: text('as sent'),
    description: text('as sent'),
    inputs: tesTaskBody.properties.inputs,
    outputs: tesTaskBody.properties.outputs,
    resources: tesResources,
    executors: tesTaskBody.properties.executors,
    volumes: tesTaskBody.properties.volumes,
    tags: tesTaskBody.properties.tags,
    logs: { type: 'array', items: taskLog },
    creation_time: text('RFC 3339'),
  },
} as const;

export const tesCreateResponse = { type: 'object', required: ['id'], properties: { id: text("the new task's id (a gdflow task id)") } } as const;
export const tesCancelResponse = { type: 'object', description: 'an empty object', additionalProperties: false } as const;

export const tesListResponse = {
  type: 'object',
  required: ['tasks'],
  properties: {
    tasks: { type: 'array', items: tesTaskView },
    next_page_token: text('absent on the last page'),
  },
} as const;

export const tesView = { enum: ['MINIMAL', 'BASIC', 'FULL'], default: 'MINIMAL', description: 'MINIMAL (the default): id and state; BASIC; FULL' } as const;

export const tesListQuery = {
  type: 'object',
  properties: {
    name_prefix: text('only tasks whose name starts with this'),
    state: { enum: TES_STATES, description: 'only tasks in this state' },
    tag_key: { type: 'array', items: { type: 'string' }, description: 'only tasks with these tags (repeat it)' },
    tag_value: { type: 'array', items: { type: 'string' }, description: 'the value of the tag_key at the same place; missing or empty: any value' },
    page_size: { type: 'integer', minimum: 1, maximum: 2048, description: 'tasks per page (default 256)' },
    page_token: text('the next_page_token of the page before'),
    view: tesView,
  },
} as const;

export const tesTaskParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, description: 'the task id' } } } as const;
export const tesGetQuery = { type: 'object', properties: { view: tesView } } as const;

export const tesServiceInfo = {
  type: 'object',
  required: ['id', 'name', 'type', 'organization', 'version'],
  properties: {
    id: text('reverse domain name'),
    name: text('a human name'),
    type: {
      type: 'object',
      required: ['group', 'artifact', 'version'],
      properties: { group: { const: 'org.ga4gh' }, artifact: { const: 'tes' }, version: { const: '1.1.0' } },
    },
    description: text('what it is'),
    organization: { type: 'object', required: ['name', 'url'], properties: { name: { type: 'string' }, url: { type: 'string' } } },
    contactUrl: text('contact'),
    documentationUrl: text('docs/ga4gh.md'),
    createdAt: text('RFC 3339'),
    updatedAt: text('RFC 3339'),
    environment: text('prod'),
    version: text("gdflow's version"),
    storage: { type: 'array', items: { type: 'string' }, description: 'the URL forms inputs and outputs may use here' },
    tesResources_backend_parameters: { type: 'array', items: { type: 'string' } },
  },
} as const;
