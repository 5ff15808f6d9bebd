/**
 * The schemas of GeneDock's `wdl/` routes (docs/wire.md §8, docs/wdl.md): WDL workflows and tools (multipart forms,
 * whose fields the domain reads: `form` documents them), their versions, and the WDL tasks.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { epochSeconds, projectParams } from './common.js';

const segment = (description: string) => ({ type: 'string', minLength: 1, description }) as const;
const digits = (description: string) => ({ type: 'string', pattern: '^0*[1-9][0-9]{0,8}$', description }) as const;

export const wdlWorkflowParams = {
  type: 'object',
  properties: { ...projectParams.properties, workflow: segment("the WDL workflow's id (24 hex digits)") },
  required: ['account', 'project', 'workflow'],
} as const;

export const wdlToolParams = {
  type: 'object',
  properties: { ...projectParams.properties, tool: segment("the WDL tool's name") },
  required: ['account', 'project', 'tool'],
} as const;

export const wdlLookUpQuery = {
  type: 'object',
  properties: {
    name: {
      type: 'string',
      maxLength: 256,
      description: "absent: every workflow (a list of lists); given: that workflow's versions (a flat list, [] when none)",
    },
    version: digits('only this version (with name)'),
  },
} as const;

export const wdlVersionQuery = { type: 'object', properties: { workflow_version: digits('absent: every version') } } as const;
export const wdlRequiredVersionQuery = {
  type: 'object',
  properties: { workflow_version: digits('the version to delete') },
  required: ['workflow_version'],
} as const;
export const wdlToolVersionQuery = { type: 'object', properties: { tool_version: digits('absent: every version') } } as const;
export const wdlRequiredToolVersionQuery = {
  type: 'object',
  properties: { tool_version: digits('the version to delete') },
  required: ['tool_version'],
} as const;

const file = (description: string) => ({ type: 'string', contentMediaType: 'application/octet-stream', description }) as const;

/** The multipart form of a create (documentation only: the domain reads the fields, naming each it refuses). */
export const wdlCreateForm = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'the name (3 to 128 letters, digits, - and _, starting with a letter), unique in the project' },
    description: { type: 'string' },
    source: file('the main .wdl document (UTF-8, at most 4 MiB)'),
    dependencies: file('optional: a zip of the documents it imports, by their paths relative to it (at most 32 MiB)'),
  },
  required: ['name', 'source'],
} as const;

export const wdlUpdateForm = {
  type: 'object',
  properties: {
    workflow_version: { type: 'string', description: 'the version to replace (override True) or to start from (False); absent: the latest' },
    override: { type: 'string', enum: ['True', 'False'], description: 'True: replace workflow_version; False (default): add a version' },
    new_version: { type: 'string', description: 'the number of the version added (override False); absent: the next free one' },
    name: { type: 'string', description: 'a new name for the workflow (every version)' },
    description: { type: 'string' },
    source: file('a new main document; absent: the one of workflow_version'),
    dependencies: file("a new zip of imports; absent: workflow_version's; an empty file: none"),
  },
} as const;

const summaryProperties = {
  id: { type: 'string', description: "the workflow's id (24 hex digits), the same for every version" },
  name: { type: 'string' },
  version: { type: 'integer' },
  description: { type: 'string' },
  status: { const: 'checked', description: 'a stored version always parsed and type-checked' },
  create_at: epochSeconds,
  update_at: epochSeconds,
  created_time: epochSeconds,
  modified_time: epochSeconds,
  app_id: { type: 'string', description: 'tools only: the id a create answers' },
} as const;

export const wdlSummary = { type: 'object', properties: summaryProperties, required: ['id', 'name', 'version', 'create_at', 'update_at'] } as const;

export const wdlDetail = {
  type: 'object',
  properties: {
    ...summaryProperties,
    source: { type: 'string', description: 'a link to the .wdl, readable without a signature until it expires' },
    source_name: { type: 'string' },
    dependencies: { type: 'string', description: "a link to the zip of imports ('' when there is none)" },
    dependencies_name: { type: ['string', 'null'] },
    inputs: { type: 'object', additionalProperties: true, description: 'the input template: "wf.x": "Int (optional, default = 3)", ...' },
  },
  required: ['id', 'name', 'version', 'source', 'dependencies', 'inputs'],
} as const;

export const wdlLookUpAnswer = {
  description: 'without name: a list of lists (one per workflow, one element per version); with name: a flat list of versions',
  type: 'array',
  items: { anyOf: [wdlSummary, { type: 'array', items: wdlSummary }] },
} as const;

export const wdlDetails = { type: 'array', items: wdlDetail, description: 'the versions asked for; [] when the workflow or version does not exist' } as const;
export const wdlToolList = {
  type: 'object',
  properties: { tool_list: { type: 'array', items: { type: 'array', items: wdlSummary } }, count: { type: 'integer' } },
  required: ['tool_list', 'count'],
} as const;
export const wdlToolGet = { type: 'object', properties: { tools: { type: 'array', items: wdlDetail } }, required: ['tools'] } as const;

export const wdlTaskBody = {
  type: 'object',
  properties: {
    workflow_id: { type: 'string', description: "the WDL workflow's id" },
    workflow_version: { type: ['integer', 'string'], description: 'the version to run (an integer, or its digits)' },
    inputs: { type: ['object', 'string'], description: 'the input JSON ("wf.x": value), or its text' },
    output_dir: { type: 'string', description: 'where the outputs are stored: "<account>:/dir/" or "/dir/" (default /home/<user>/<task_name>/)' },
    task_name: { type: ['string', 'null'], description: 'unique in the project; absent: one is made' },
    keep_output_structure: {
      type: ['boolean', 'string'],
      description: "true (default): outputs keep their call's folders under output_dir; false: all in output_dir",
    },
  },
  required: ['workflow_id'],
} as const;

export const wdlRestartBody = {
  type: 'object',
  properties: {
    debug_params: {
      type: 'array',
      description: 'calls to run again with changes; [] runs again what did not succeed',
      items: {
        type: 'object',
        properties: {
          job_name: { type: 'string', description: 'the call (its alias), as the jobs are named' },
          runtime: {
            type: 'object',
            properties: { cpu: { type: ['string', 'number'] }, memory: { type: ['string', 'number'] }, disk: { type: ['string', 'number'] } },
          },
          command: { type: 'string', description: 'a new command for the call' },
        },
      },
    },
  },
} as const;

export const wdlListTasksQuery = { source_id: { type: 'string', description: 'only the tasks restarted from this task' } } as const;

export type WdlTaskBody = FromSchema<typeof wdlTaskBody>;
export type WdlRestartBody = FromSchema<typeof wdlRestartBody>;

/** `POST wdl/runs/`: a WDL document run as it is, with no stored workflow (what `gdflow wdl run` sends; docs/wdl.md). */
export const runWdlBody = {
  type: 'object',
  properties: {
    source: { type: 'string', maxLength: 4 * 1024 * 1024, description: 'the main .wdl document' },
    source_name: { type: 'string', maxLength: 1024, description: 'its file name, for messages and relative imports (default main.wdl)' },
    files: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'the documents it imports: their paths relative to it ("tasks/align.wdl") -> their text',
    },
    inputs: { type: 'object', description: 'the input JSON ("wf.x": value); File values are data-store paths ("<account>:/dir/x.fq")' },
    task: { type: 'string', description: 'run this task of the main document instead of its workflow' },
    output_dir: { type: 'string', description: 'where the outputs are stored in the data store: "<account>:/dir/" or "/dir/"' },
    task_name: { type: 'string', description: "the task's name, unique in the project (absent: one is made)" },
  },
  required: ['source', 'output_dir'],
  additionalProperties: false,
} as const;

export const wdlRun = {
  type: 'object',
  properties: {
    task_id: { type: 'string', description: '24 hex digits: the task routes serve the run too' },
    status: { enum: ['scheduled', 'queued', 'running', 'stopping', 'succeeded', 'failed', 'stopped'], description: "the task's status" },
    outputs: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'the run\'s outputs once it succeeded ("wf.out": value), File values as data-store paths under output_dir; else null',
    },
    reason: { type: ['string', 'null'], description: 'why the run failed or was stopped; else null' },
  },
  required: ['task_id', 'status', 'outputs', 'reason'],
} as const;

export type RunWdlBody = FromSchema<typeof runWdlBody>;
export type WdlRun = FromSchema<typeof wdlRun>;
