/**
 * Every route of the API in one table: its method and path, the GeneDock operation whose error form it answers
 * in (server/errors.ts), and the JSON Schemas of its parameters, query, body and answer. The server registers
 * each route from its entry (Fastify validates requests with the schemas, json-schema-to-ts types the handlers),
 * the SDK takes its wire types from the same schemas (client/types.ts), and GET /openapi.json is built from this
 * table (server/openapi.ts). A route the server registers without an entry here fails a test.
 */
import {
  anyObject,
  errorBody,
  jobParams,
  latestToolVersionQuery,
  latestWorkflowVersionQuery,
  projectParams,
  requiredToolVersionQuery,
  requiredWorkflowVersionQuery,
  taskParams,
  toolParams,
  toolVersionQuery,
  workflowParams,
  workflowVersionQuery,
} from './common.js';
import {
  activatedTask,
  activateWorkflowBody,
  jobCacheExplanation,
  jobCommand,
  jobInfo,
  jobList,
  listTasksQuery,
  task,
  taskEvents,
  taskList,
  taskOutputs,
} from './tasks.js';
import { callerIdentity, dataList, dataPutResult } from './data.js';
import { cwlDocument, cwlRun, importCwlBody, importedCwl, runCwlBody } from './cwl.js';
import {
  tesCancelResponse,
  tesCreateResponse,
  tesGetQuery,
  tesListQuery,
  tesListResponse,
  tesServiceInfo,
  tesTaskBody,
  tesTaskParams,
  tesTaskView,
} from './tes.js';
import { createToolBody, getToolResponse, putToolBody, toolDetailsResponse, toolList, toolParameterTemplate } from './tools.js';
import { createWorkflowBody, executableWorkflowResponse, getWorkflowResponse, putWorkflowBody, setRunTemplateBody, workflowList } from './workflows.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';

/** The empty 200 of a write (INTERFACE.md §4). */
const empty = { type: 'null', description: 'an empty body' } as const;
const emptyList = { type: 'array', maxItems: 0, description: 'always empty: gdflow has no WDL workflows' } as const;

const P = '/accounts/:account/projects/:project';
const TES = '/ga4gh/tes/v1';

/** GET /healthz: what the process is; a process that runs jobs adds its worker's state (docs/operating.md). */
const health = {
  type: 'object',
  required: ['status', 'role', 'version', 'executor', 'store'],
  properties: {
    status: { const: 'ok' },
    role: { enum: ['all', 'api', 'worker'] },
    version: { type: 'string', description: "gdflow's version" },
    executor: { type: ['string', 'null'], description: 'how jobs run (bwrap, host, podman, docker, slurm); null on an API replica, which runs none' },
    store: { enum: ['sqlite', 'postgres'], description: 'the kind of store' },
  },
  additionalProperties: true,
} as const;

function taskRoutes<C extends 'tasks' | 'wdl/tasks'>(collection: C) {
  const base = `${P}/${collection}` as const;
  const tag = collection === 'tasks' ? 'tasks' : 'gwc';
  return {
    list: {
      method: 'GET',
      url: `${base}/`,
      operation: 'Task',
      tag,
      summary: 'List tasks, newest first',
      schema: { params: projectParams, querystring: listTasksQuery, response: { 200: taskList } },
    },
    get: { method: 'GET', url: `${base}/:task/`, operation: 'Task', tag, summary: 'Get a task', schema: { params: taskParams, response: { 200: task } } },
    stop: {
      method: 'PUT',
      url: `${base}/:task/`,
      operation: 'Task',
      tag,
      summary: 'Stop a task (no body; stopping an ended task is a harmless 200)',
      schema: { params: taskParams, response: { 200: task } },
    },
    delete: {
      method: 'DELETE',
      url: `${base}/:task/`,
      operation: 'Task',
      tag,
      summary: 'Delete a task, its jobs and files',
      schema: { params: taskParams, response: { 200: empty } },
    },
    jobs: {
      method: 'GET',
      url: `${base}/:task/jobs/`,
      operation: 'Job',
      tag,
      summary: "List a task's jobs",
      schema: { params: taskParams, response: { 200: jobList } },
    },
    job: {
      method: 'GET',
      url: `${base}/:task/jobs/:job/`,
      operation: 'Job',
      tag,
      summary: 'Get a job, with its log link',
      schema: { params: jobParams, response: { 200: jobInfo } },
    },
    command: {
      method: 'GET',
      url: `${base}/:task/cmd/:job/`,
      operation: 'Job',
      tag,
      summary: "Get a job's rendered command",
      schema: { params: jobParams, response: { 200: jobCommand } },
    },
    events: {
      method: 'GET',
      url: `${base}/:task/events/`,
      operation: 'Task',
      tag,
      summary: "A task's events",
      schema: { params: taskParams, response: { 200: taskEvents } },
    },
    outputs: {
      method: 'GET',
      url: `${base}/:task/outputs/`,
      operation: 'Task',
      tag,
      summary: "What a task stored, or is to store, in the data store: each item's name, size, state, the node and job that wrote it, and its store step",
      schema: { params: taskParams, response: { 200: taskOutputs } },
    },
    explain: {
      method: 'GET',
      url: `${base}/:task/jobs/:job/explain/`,
      operation: 'Job',
      tag,
      summary: 'Why a job was or was not a call-cache hit: the nearest earlier job and the parts of the key that differ',
      schema: { params: jobParams, response: { 200: jobCacheExplanation } },
    },
    rerun: {
      method: 'POST',
      url: `${base}/:task/rerun/`,
      operation: 'Task',
      tag,
      summary: 'Run a task again with it as the reference task (no body): its succeeded jobs whose keys still match are reused',
      schema: { params: taskParams, response: { 200: activatedTask } },
    },
  } as const;
}

export const ROUTES = {
  // INTERFACE.md 4.1–4.7
  CreateTool: {
    method: 'POST',
    url: `${P}/tools/`,
    operation: 'CreateTool',
    tag: 'tools',
    summary: 'Create a tool (or its next version)',
    schema: { params: projectParams, body: createToolBody, response: { 200: empty } },
  },
  PutTool: {
    method: 'PUT',
    url: `${P}/tools/:tool/`,
    operation: 'PutTool',
    tag: 'tools',
    summary: "Put a tool version's definition",
    schema: { params: toolParams, body: putToolBody, response: { 200: empty } },
  },
  DeleteTool: {
    method: 'DELETE',
    url: `${P}/tools/:tool/`,
    operation: 'DeleteTool',
    tag: 'tools',
    summary: 'Delete a tool version',
    schema: { params: toolParams, querystring: requiredToolVersionQuery, response: { 200: empty } },
  },
  ListTool: {
    method: 'GET',
    url: `${P}/tools/`,
    operation: 'ListTool',
    tag: 'tools',
    summary: "List the project's tools",
    schema: { params: projectParams, response: { 200: toolList } },
  },
  GetTool: {
    method: 'GET',
    url: `${P}/tools/:tool/`,
    operation: 'GetTool',
    tag: 'tools',
    summary: 'Get a tool: one version, or every version',
    schema: { params: toolParams, querystring: toolVersionQuery, response: { 200: getToolResponse } },
  },
  GetToolParameterTemplate: {
    method: 'GET',
    url: `${P}/toolparameters/:tool/`,
    operation: 'GetToolParameterTemplate',
    tag: 'tools',
    summary: "A tool version's parameter template (without tool_version: the latest checked version)",
    schema: { params: toolParams, querystring: latestToolVersionQuery, response: { 200: toolParameterTemplate } },
  },
  GetToolDetails: {
    method: 'GET',
    url: `${P}/tooldetails/:tool/`,
    operation: 'GetToolDetails',
    tag: 'tools',
    summary: "A tool version's details (without tool_version: the latest checked version)",
    schema: { params: toolParams, querystring: latestToolVersionQuery, response: { 200: toolDetailsResponse } },
  },
  // INTERFACE.md 4.8–4.14, the run-template update (docs/wire.md §2) and the graph view
  CreateWorkflow: {
    method: 'POST',
    url: `${P}/workflows/`,
    operation: 'CreateWorkflow',
    tag: 'workflows',
    summary: 'Create a workflow (or its next version)',
    schema: { params: projectParams, body: createWorkflowBody, response: { 200: empty } },
  },
  PutWorkflow: {
    method: 'PUT',
    url: `${P}/workflows/:workflow/`,
    operation: 'PutWorkflow',
    tag: 'workflows',
    summary: "Put a workflow version's configuration",
    schema: { params: workflowParams, body: putWorkflowBody, response: { 200: empty } },
  },
  GetWorkflow: {
    method: 'GET',
    url: `${P}/workflows/:workflow/`,
    operation: 'GetWorkflow',
    tag: 'workflows',
    summary: 'Get a workflow: one version, or every version',
    schema: { params: workflowParams, querystring: workflowVersionQuery, response: { 200: getWorkflowResponse } },
  },
  DeleteWorkflow: {
    method: 'DELETE',
    url: `${P}/workflows/:workflow/`,
    operation: 'DeleteWorkflow',
    tag: 'workflows',
    summary: 'Delete a workflow version',
    schema: { params: workflowParams, querystring: requiredWorkflowVersionQuery, response: { 200: empty } },
  },
  ListWorkflow: {
    method: 'GET',
    url: `${P}/workflows/`,
    operation: 'ListWorkflow',
    tag: 'workflows',
    summary: "List the project's workflows",
    schema: { params: projectParams, response: { 200: workflowList } },
  },
  GetWorkflowGraph: {
    method: 'GET',
    url: `${P}/workflows/:workflow/graph/`,
    operation: 'GetWorkflowGraph',
    tag: 'workflows',
    summary: "A workflow version's graph: nodes, links, order",
    schema: { params: workflowParams, querystring: latestWorkflowVersionQuery, response: { 200: anyObject } },
  },
  ListExecutableWorkflow: {
    method: 'GET',
    url: `${P}/executable-workflows/`,
    operation: 'ListExecutableWorkflow',
    tag: 'workflows',
    summary: 'List the workflows that can run',
    schema: { params: projectParams, response: { 200: workflowList } },
  },
  GetExecutableWorkflow: {
    method: 'GET',
    url: `${P}/executable-workflows/:workflow/`,
    operation: 'GetExecutableWorkflow',
    tag: 'workflows',
    summary: "A workflow version's run-parameter template",
    schema: { params: workflowParams, querystring: latestWorkflowVersionQuery, response: { 200: executableWorkflowResponse } },
  },
  SetRunTemplate: {
    method: 'PUT',
    url: `${P}/executable-workflows/:workflow/`,
    operation: 'SetRunTemplate',
    tag: 'workflows',
    summary: "Set a workflow version's run-parameter template",
    schema: { params: workflowParams, body: setRunTemplateBody, response: { 200: empty } },
  },
  // CWL v1.2 (docs/cwl.md): a tool or workflow version as a CWL document
  ExportToolCwl: {
    method: 'GET',
    url: `${P}/tools/:tool/cwl/`,
    operation: 'ExportToolCwl',
    tag: 'cwl',
    summary: 'A tool version as a CWL v1.2 CommandLineTool (without tool_version: the latest checked version)',
    schema: { params: toolParams, querystring: latestToolVersionQuery, response: { 200: cwlDocument } },
  },
  ExportWorkflowCwl: {
    method: 'GET',
    url: `${P}/workflows/:workflow/cwl/`,
    operation: 'ExportWorkflowCwl',
    tag: 'cwl',
    summary: 'A workflow version as a CWL v1.2 Workflow with its tools embedded (without workflow_version: the latest checked version)',
    schema: { params: workflowParams, querystring: latestWorkflowVersionQuery, response: { 200: cwlDocument } },
  },
  RunCwl: {
    method: 'POST',
    url: `${P}/cwl/runs/`,
    operation: 'RunCwl',
    tag: 'cwl',
    summary: 'Run a packed CWL document with a job object: a task like any other (a document needing what gdflow does not support: 400 UnsupportedRequirement)',
    schema: { params: projectParams, body: runCwlBody, response: { 200: activatedTask } },
  },
  GetCwlRun: {
    method: 'GET',
    url: `${P}/cwl/runs/:task/`,
    operation: 'GetCwlRun',
    tag: 'cwl',
    summary: "A CWL run's status, and its CWL output object once it succeeded (gdflow: locations under cwl/runs/<task_id>/)",
    schema: { params: taskParams, response: { 200: cwlRun } },
  },
  ImportCwl: {
    method: 'POST',
    url: `${P}/cwl/import/`,
    operation: 'ImportCwl',
    tag: 'cwl',
    summary:
      'Import a packed CWL document: its CommandLineTools and ExpressionTools as tool versions, its Workflows as workflow versions (each keeping its CWL document)',
    schema: { params: projectParams, body: importCwlBody, response: { 200: importedCwl } },
  },
  WdlListWorkflow: {
    method: 'GET',
    url: `${P}/wdl/workflow/`,
    operation: 'ListWorkflow',
    tag: 'gwc',
    summary: 'WDL workflows (gwc looks for them): always an empty list',
    schema: { params: projectParams, response: { 200: emptyList } },
  },
  WdlGetWorkflow: {
    method: 'GET',
    url: `${P}/wdl/workflow/:workflow/`,
    operation: 'GetWorkflow',
    tag: 'gwc',
    summary: 'A WDL workflow (gwc looks for them): always an empty list',
    schema: { params: workflowParams, response: { 200: emptyList } },
  },
  // INTERFACE.md 4.15 and the task routes of docs/wire.md §2, also under wdl/tasks/ for gwc
  ActivateWorkflow: {
    method: 'POST',
    url: `${P}/tasks/`,
    operation: 'ActivateWorkflow',
    tag: 'tasks',
    summary: 'Run a workflow: start a task',
    schema: { params: projectParams, body: activateWorkflowBody, response: { 200: activatedTask } },
  },
  Tasks: taskRoutes('tasks'),
  WdlTasks: taskRoutes('wdl/tasks'),
  // docs/wire.md §2: what gwc asks about the caller
  Credentials: {
    method: 'GET',
    url: '/miscellaneous/credentials/',
    operation: 'Account',
    tag: 'account',
    summary: 'Who signed the request',
    schema: { response: { 200: callerIdentity } },
  },
  AuthorizedPolicies: {
    method: 'GET',
    url: '/accounts/:account/users/:user/authorized_policies/',
    operation: 'Account',
    tag: 'account',
    summary: "A user's policies: always empty (an account's keys may do everything in its projects)",
    schema: {
      params: {
        type: 'object',
        properties: { account: { type: 'string', minLength: 1 }, user: { type: 'string', minLength: 1 } },
        required: ['account', 'user'],
      },
      response: { 200: { type: 'array', items: { type: 'object', properties: { policy_name: { type: 'string' }, owner: { type: 'string' } } } } },
    },
  },
  // Data store (docs/data.md): bodies are files, not JSON
  ListData: {
    method: 'GET',
    url: '/accounts/:account/data/',
    operation: 'Data',
    tag: 'data',
    summary: 'List data items below a prefix',
    schema: {
      params: { type: 'object', properties: { account: { type: 'string', minLength: 1 } }, required: ['account'] },
      querystring: { type: 'object', properties: { prefix: { type: 'string' }, limit: { type: 'integer', minimum: 1 } } },
      response: { 200: dataList },
    },
  },
  PutData: {
    method: 'PUT',
    url: '/accounts/:account/data/*',
    operation: 'Data',
    tag: 'data',
    summary: 'Upload a data item (the body, any type), atomically',
    raw: true,
    schema: { response: { 200: dataPutResult } },
  },
  GetData: { method: 'GET', url: '/accounts/:account/data/*', operation: 'Data', tag: 'data', summary: 'Download a data item', raw: true, schema: {} },
  DeleteData: {
    method: 'DELETE',
    url: '/accounts/:account/data/*',
    operation: 'Data',
    tag: 'data',
    summary: 'Delete a data item',
    schema: { response: { 200: empty } },
  },
  // The web console (docs/console.md): unsigned files; the console signs its API requests in the browser
  ConsoleRoot: {
    method: 'GET',
    url: '/',
    operation: 'Console',
    tag: 'console',
    auth: false,
    raw: true,
    summary: 'A redirect to the web console (/console/)',
    schema: {},
  },
  ConsolePage: {
    method: 'GET',
    url: '/console/',
    operation: 'Console',
    tag: 'console',
    auth: false,
    raw: true,
    summary: 'The web console (HTML, with a strict Content-Security-Policy)',
    schema: {},
  },
  ConsoleFile: {
    method: 'GET',
    url: '/console/*',
    operation: 'Console',
    tag: 'console',
    auth: false,
    raw: true,
    pathDescription: 'a file of the console build',
    summary: "The web console's script, style sheet and icon",
    schema: {},
  },
  // GA4GH TES 1.1 (docs/ga4gh.md): signed, or Basic or Bearer credentials; errors as {msg, status_code}
  Tes: {
    serviceInfo: {
      method: 'GET',
      url: `${TES}/service-info`,
      operation: 'Tes',
      tag: 'ga4gh-tes',
      auth: false,
      summary: 'TES service info: storage URL forms, backend parameters',
      schema: { response: { 200: tesServiceInfo } },
    },
    create: {
      method: 'POST',
      url: `${TES}/tasks`,
      operation: 'CreateTesTask',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: 'Create a TES task (a gdflow task of one job)',
      schema: { body: tesTaskBody, response: { 200: tesCreateResponse } },
    },
    list: {
      method: 'GET',
      url: `${TES}/tasks`,
      operation: 'Tes',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: "List the project's TES tasks, newest first",
      schema: { querystring: tesListQuery, response: { 200: tesListResponse } },
    },
    get: {
      method: 'GET',
      url: `${TES}/tasks/:id`,
      operation: 'Tes',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: 'Get a TES task in a view',
      schema: { params: tesTaskParams, querystring: tesGetQuery, response: { 200: tesTaskView } },
    },
    cancel: {
      method: 'POST',
      url: `${TES}/tasks/:id(^[^:/]+)::cancel`,
      operation: 'CancelTesTask',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: 'Cancel a TES task (an ended one stays as it is)',
      schema: { params: tesTaskParams, response: { 200: tesCancelResponse } },
    },
  },
  // Unsigned
  Log: {
    method: 'GET',
    url: '/logs/:job/',
    operation: 'Job',
    tag: 'tasks',
    auth: false,
    raw: true,
    summary:
      "A job's log (text), by the signed link of its job info; Range: bytes=N- for the part from byte N on (206, or 416 InvalidRange when nothing is there yet)",
    schema: {
      params: { type: 'object', properties: { job: { type: 'string', minLength: 1 } }, required: ['job'] },
      querystring: {
        type: 'object',
        properties: { expires: { type: 'string' }, signature: { type: 'string' }, stream: { type: 'string', enum: ['stdout', 'stderr'] } },
      },
    },
  },
  Health: {
    method: 'GET',
    url: '/healthz',
    operation: 'Health',
    tag: 'operations',
    auth: false,
    summary: "The server's health: role, version, executor, store kind and worker state",
    schema: { response: { 200: health } },
  },
  Metrics: {
    method: 'GET',
    url: '/metrics',
    operation: 'Metrics',
    tag: 'operations',
    auth: false,
    raw: true,
    summary: 'Prometheus metrics (a bearer token, or loopback only)',
    schema: {},
  },
  OpenApi: {
    method: 'GET',
    url: '/openapi.json',
    operation: 'OpenApi',
    tag: 'operations',
    auth: false,
    summary: 'This document',
    schema: { response: { 200: anyObject } },
  },
} as const;

export interface RouteEntry {
  method: Method;
  url: string;
  /** The GeneDock operation whose error form the route answers in. */
  operation: string;
  tag: string;
  summary: string;
  /** false: unsigned; 'ga4gh': signed, or Basic or Bearer credentials (docs/ga4gh.md). */
  auth?: false | 'ga4gh';
  /** The body or answer is not JSON (files, text, metrics). */
  raw?: true;
  /** What the `*` at the end of the URL stands for (default: a data item's path). */
  pathDescription?: string;
  schema: { params?: object; querystring?: object; body?: object; response?: Record<number, object> };
}

/** Every entry with its id (`GetTool`, `Tasks.list`), in the table's order. */
export function allRoutes(): Array<[string, RouteEntry]> {
  const out: Array<[string, RouteEntry]> = [];
  const visit = (id: string, value: object): void => {
    if ('method' in value && 'url' in value) out.push([id, value as RouteEntry]);
    else for (const [key, child] of Object.entries(value)) visit(id ? `${id}.${key}` : key, child as object);
  };
  visit('', ROUTES);
  return out;
}

export { errorBody };
