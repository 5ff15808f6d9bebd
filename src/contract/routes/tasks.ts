/** Tasks and jobs (INTERFACE.md 4.15, docs/wire.md §2), also under wdl/tasks/ for gwc, and what gwc asks about the caller. */
import { jobParams, projectParams, taskParams } from '../common.js';
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
} from '../tasks.js';
import { callerIdentity } from '../data.js';
import { empty, P } from './shared.js';

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

export const TASK_ROUTES = {
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
} as const;
