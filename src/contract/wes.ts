/**
 * GA4GH WES 1.1 (docs/ga4gh.md, "WES") as JSON Schemas: the form a client posts, the run logs, lists and the service
 * info gdflow answers with. Field names and meanings are WES's own; what gdflow adds or limits is in the descriptions.
 */
import { WES_STATES } from './ga4gh-states.js';

export { WES_STATES };

const text = (description: string) => ({ type: 'string', description }) as const;
const nullableText = (description: string) => ({ type: ['string', 'null'], description }) as const;
const stringMap = (description: string) => ({ type: 'object', additionalProperties: { type: 'string' }, description }) as const;
/** A form field that holds JSON (in a JSON body, the object itself). */
const jsonText = (description: string) => ({ type: ['string', 'object'], description }) as const;
const state = { enum: [...WES_STATES], description: 'the run\'s WES state (docs/ga4gh.md, "WES states")' } as const;

/** The form fields of POST /runs, as the server parses the multipart body (a file part is its name and size). */
export const wesRunForm = {
  type: 'object',
  required: ['workflow_type', 'workflow_url'],
  properties: {
    workflow_params: jsonText(
      'JSON object: the CWL job object (File locations: relative paths of attachments, or gdflow:<data path>), or a GeneDock run template as filled',
    ),
    workflow_type: text('CWL or GeneDock (any case: cwl is CWL)'),
    workflow_type_version: text('CWL: v1.0, v1.1 or v1.2; GeneDock: 1.0; default: what the document says'),
    tags: jsonText('JSON object of strings: kept with the run'),
    workflow_engine_parameters: jsonText('JSON object of strings: task_name (the gdflow task name); other keys are kept and not used'),
    workflow_engine: text('gdflow (any other engine is refused)'),
    workflow_engine_version: text('accepted and not used'),
    workflow_url: text(
      "the relative path of an attached file (a CWL document, with #process), gdflow:<data path> of a CWL document in the caller's data store, " +
        'or workflow:<name>[/<version>] of a workflow registered in the project (GeneDock, or imported from CWL)',
    ),
    workflow_attachment: {
      type: 'array',
      items: { type: 'object', required: ['name', 'size'], properties: { name: text('its relative path'), size: { type: 'integer' } } },
      description: "files: the workflow's documents and its inputs, each under its relative path (the part's filename)",
    },
  },
  additionalProperties: false,
} as const;

export const wesRunId = { type: 'object', required: ['run_id'], properties: { run_id: text('the gdflow task id') } } as const;

export const wesRunParams = { type: 'object', required: ['run_id'], properties: { run_id: { type: 'string', minLength: 1 } } } as const;

export const wesPageQuery = {
  type: 'object',
  properties: {
    page_size: { type: 'integer', minimum: 1, maximum: 2048, description: 'how many (default 256 runs, 1000 tasks)' },
    page_token: text('the next_page_token of the page before'),
  },
  additionalProperties: false,
} as const;

const log = {
  type: 'object',
  properties: {
    name: text("the task's (or job's) name"),
    cmd: { type: 'array', items: { type: 'string' }, description: 'the rendered command' },
    start_time: nullableText('ISO 8601'),
    end_time: nullableText('ISO 8601'),
    stdout: nullableText('a signed link to the log (GET, no credentials needed until it expires)'),
    stderr: nullableText('a signed link to the standard error'),
    exit_code: { type: ['integer', 'null'] },
    system_logs: { type: 'array', items: { type: 'string' }, description: 'why it failed or was stopped' },
  },
} as const;

export const wesTaskLog = {
  ...log,
  required: ['id', 'name'],
  properties: { ...log.properties, id: text('the gdflow job id'), tes_uri: nullableText('the TES task, for a run that is one') },
} as const;

export const wesRunLog = {
  type: 'object',
  required: ['run_id', 'request', 'state'],
  properties: {
    run_id: text('the gdflow task id (the same in the GeneDock task routes and the console)'),
    request: {
      type: 'object',
      description: 'the RunRequest: as posted for a run started through WES; made from the task for one started otherwise',
      properties: {
        workflow_params: { type: 'object' },
        workflow_type: text('CWL or GeneDock'),
        workflow_type_version: text('the version'),
        tags: stringMap('the tags'),
        workflow_engine_parameters: stringMap('the engine parameters'),
        workflow_url: text('as posted'),
      },
    },
    state,
    run_log: log,
    task_logs_url: text("GET it: the run's jobs as TaskLogs (paged)"),
    task_logs: { type: ['array', 'null'], items: wesTaskLog, description: 'null: read task_logs_url (WES 1.1)' },
    outputs: {
      type: ['object', 'null'],
      description:
        'once COMPLETE: the CWL output object (GeneDock runs: each stored output by its node), File locations URLs of the data store the ' +
        "client reads with its credentials; `path` the file on the server's file system for a client on the same host",
    },
  },
} as const;

export const wesRunStatus = { type: 'object', required: ['run_id', 'state'], properties: { run_id: text('the task id'), state } } as const;

export const wesRunList = {
  type: 'object',
  required: ['runs'],
  properties: {
    runs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['run_id', 'state'],
        properties: {
          run_id: text('the task id'),
          state,
          start_time: nullableText('ISO 8601'),
          end_time: nullableText('ISO 8601'),
          tags: stringMap('the tags'),
        },
      },
    },
    next_page_token: text('absent on the last page'),
  },
} as const;

export const wesTaskList = {
  type: 'object',
  required: ['task_logs'],
  properties: { task_logs: { type: 'array', items: wesTaskLog }, next_page_token: text('absent on the last page') },
} as const;

export const wesServiceInfo = {
  type: 'object',
  required: [
    'id',
    'name',
    'type',
    'organization',
    'version',
    'workflow_type_versions',
    'supported_wes_versions',
    'supported_filesystem_protocols',
    'workflow_engine_versions',
    'system_state_counts',
  ],
  properties: {
    id: text('reverse domain name'),
    name: text('name'),
    type: { type: 'object', properties: { group: { const: 'org.ga4gh' }, artifact: { const: 'wes' }, version: { const: '1.1.0' } } },
    description: text('what it is'),
    organization: { type: 'object', properties: { name: text('name'), url: text('url') } },
    contactUrl: text('where to ask'),
    documentationUrl: text('the OpenAPI document'),
    createdAt: text('ISO 8601'),
    updatedAt: text('ISO 8601'),
    environment: text('prod'),
    version: text("gdflow's version"),
    workflow_type_versions: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { workflow_type_version: { type: 'array', items: { type: 'string' } } } },
      description: "CWL v1.0, v1.1, v1.2; GeneDock 1.0 (gdflow's own workflows)",
    },
    supported_wes_versions: { type: 'array', items: { type: 'string' } },
    supported_filesystem_protocols: { type: 'array', items: { type: 'string' }, description: 'attachments (relative paths) and gdflow: data locations' },
    workflow_engine_versions: { type: 'object', additionalProperties: { type: 'object' } },
    default_workflow_engine_parameters: {
      type: 'array',
      items: { type: 'object', properties: { name: text('name'), type: text('type'), default_value: text('default') } },
    },
    system_state_counts: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'every task of the server by WES state (failed ones as EXECUTOR_ERROR)',
    },
    auth_instructions_url: text('how to get credentials'),
    tags: stringMap('none'),
  },
} as const;
