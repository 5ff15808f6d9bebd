/**
 * GeneDock's WDL routes as gwc and gdpy use them (docs/wire.md §8, docs/wdl.md): workflows and tools, whose creates
 * and updates are multipart forms, the signed links to their files, and the task routes under wdl/tasks/ with the run
 * and restart that only WDL has.
 */
import { projectParams, taskParams } from '../common.js';
import { activatedTask, listTasksQuery } from '../tasks.js';
import {
  wdlCreateForm,
  wdlDetails,
  wdlListTasksQuery,
  wdlLookUpAnswer,
  wdlLookUpQuery,
  wdlRequiredToolVersionQuery,
  wdlRequiredVersionQuery,
  wdlRestartBody,
  wdlSummary,
  wdlTaskBody,
  wdlToolGet,
  wdlToolList,
  wdlToolParams,
  wdlToolVersionQuery,
  wdlUpdateForm,
  wdlVersionQuery,
  wdlWorkflowParams,
  runWdlBody,
  wdlRun,
} from '../wdl.js';
import { empty, P } from './shared.js';
import { taskRoutes } from './tasks.js';

function wdlRoutes() {
  const W = `${P}/wdl/workflow`;
  const T = `${P}/wdl/tools`;
  const tag = 'wdl';
  const created = { 200: wdlSummary };
  return {
    lookUp: {
      method: 'GET',
      url: `${W}/`,
      operation: 'ListWdlWorkflow',
      tag,
      summary: "The project's WDL workflows (a list of lists), or one's versions by name (a flat list; [] when none)",
      schema: { params: projectParams, querystring: wdlLookUpQuery, response: { 200: wdlLookUpAnswer } },
    },
    create: {
      method: 'POST',
      url: `${W}/`,
      operation: 'CreateWdlWorkflow',
      tag,
      multipart: true,
      summary: 'Create a WDL workflow (version 1) from a multipart form',
      schema: { params: projectParams, form: wdlCreateForm, response: created },
    },
    get: {
      method: 'GET',
      url: `${W}/:workflow/`,
      operation: 'GetWdlWorkflow',
      tag,
      summary: "A WDL workflow's versions (or one) with links to its files and its input template; [] when there is none such",
      schema: { params: wdlWorkflowParams, querystring: wdlVersionQuery, response: { 200: wdlDetails } },
    },
    update: {
      method: 'PUT',
      url: `${W}/:workflow/`,
      operation: 'UpdateWdlWorkflow',
      tag,
      multipart: true,
      summary: 'Replace a version (override True) or add one (False) from a multipart form',
      schema: { params: wdlWorkflowParams, form: wdlUpdateForm, response: created },
    },
    delete: {
      method: 'DELETE',
      url: `${W}/:workflow/`,
      operation: 'DeleteWdlWorkflow',
      tag,
      summary: 'Delete a WDL workflow version (the workflow with its last one)',
      schema: { params: wdlWorkflowParams, querystring: wdlRequiredVersionQuery, response: { 200: empty } },
    },
    toolList: {
      method: 'GET',
      url: `${T}/`,
      operation: 'ListWdlTool',
      tag,
      summary: "The project's WDL tools: {tool_list (a list of lists), count}",
      schema: { params: projectParams, response: { 200: wdlToolList } },
    },
    toolCreate: {
      method: 'POST',
      url: `${T}/`,
      operation: 'CreateWdlTool',
      tag,
      multipart: true,
      summary: 'Create a WDL tool (a document of one task) from a multipart form; answers its app_id',
      schema: { params: projectParams, form: wdlCreateForm, response: created },
    },
    toolGet: {
      method: 'GET',
      url: `${T}/:tool/`,
      operation: 'GetWdlTool',
      tag,
      summary: "A WDL tool's versions (or one) with links and input template",
      schema: { params: wdlToolParams, querystring: wdlToolVersionQuery, response: { 200: wdlToolGet } },
    },
    toolUpdate: {
      method: 'PUT',
      url: `${T}/:tool/`,
      operation: 'UpdateWdlTool',
      tag,
      multipart: true,
      summary: 'Replace a WDL tool version (override True) or add one (False)',
      schema: { params: wdlToolParams, form: wdlUpdateForm, response: created },
    },
    toolDelete: {
      method: 'DELETE',
      url: `${T}/:tool/`,
      operation: 'DeleteWdlTool',
      tag,
      summary: 'Delete a WDL tool version',
      schema: { params: wdlToolParams, querystring: wdlRequiredToolVersionQuery, response: { 200: empty } },
    },
    file: {
      method: 'GET',
      url: '/wdl-files/:version/:part/',
      operation: 'GetWdlWorkflow',
      tag,
      auth: false,
      raw: true,
      summary: "A WDL version's source or dependencies zip, by the signed link of its get (unsigned, as Log_downloadURL)",
      schema: {
        params: {
          type: 'object',
          properties: { version: { type: 'string', minLength: 1 }, part: { type: 'string', enum: ['source', 'dependencies'] } },
          required: ['version', 'part'],
        },
        querystring: { type: 'object', properties: { expires: { type: 'string' }, signature: { type: 'string' } } },
      },
    },
  } as const;
}

function wdlTaskRoutes() {
  const routes = taskRoutes('wdl/tasks');
  const base = `${P}/wdl/tasks`;
  return {
    ...routes,
    list: {
      ...routes.list,
      summary: 'List tasks, newest first (source_id: the tasks restarted from one)',
      schema: { ...routes.list.schema, querystring: { ...listTasksQuery, properties: { ...listTasksQuery.properties, ...wdlListTasksQuery } } },
    },
    create: {
      method: 'POST',
      url: `${base}/`,
      operation: 'RunWdlWorkflow',
      tag: 'wdl',
      summary: 'Run a WDL workflow version: a task like any other',
      schema: { params: projectParams, body: wdlTaskBody, response: { 200: activatedTask } },
    },
    restart: {
      method: 'PUT',
      url: `${base}/:task/restart/`,
      operation: 'RestartWdlTask',
      tag: 'wdl',
      summary:
        'Restart a WDL task: a new task (source_id: this one) of the same version, inputs and output_dir; debug_params are checked against its calls (docs/wdl.md)',
      schema: { params: taskParams, body: wdlRestartBody, response: { 200: activatedTask } },
    },
  } as const;
}

/** gdflow's own: a WDL document run as it is, as `gdflow wdl run` runs it (docs/wdl.md, "gdflow wdl run"). */
const WDL_RUN_ROUTES = {
  RunWdl: {
    method: 'POST',
    url: `${P}/wdl/runs/`,
    operation: 'RunWdl',
    tag: 'wdl',
    summary: 'Run a WDL document (with the documents it imports) and an input JSON: a task like any other, no stored workflow',
    schema: { params: projectParams, body: runWdlBody, response: { 200: activatedTask } },
  },
  GetWdlRun: {
    method: 'GET',
    url: `${P}/wdl/runs/:task/`,
    operation: 'GetWdlRun',
    tag: 'wdl',
    summary: "A WDL run's status, and its outputs once it succeeded (File values as data-store paths under its output_dir)",
    schema: { params: taskParams, response: { 200: wdlRun } },
  },
} as const;

export const WDL_ROUTES = {
  Wdl: wdlRoutes(),
  WdlTasks: wdlTaskRoutes(),
  ...WDL_RUN_ROUTES,
} as const;
