/** ActivateWorkflow (INTERFACE.md 4.15) and the task and job routes (docs/wire.md §2, docs/tasks.md). */
import { epochSeconds, version } from './common.js';
import { runParameters } from './workflows.js';

const text = { type: 'string' } as const;

export const activateWorkflowBody = {
  type: 'object',
  properties: {
    workflow_name: text,
    workflow_version: version,
    workflow_owner: { type: 'string', minLength: 1, description: 'the account that owns the workflow, when it is not the caller' },
    task_name: { type: ['string', 'null'], description: 'unique in the project; absent: one is made' },
    parameters: runParameters,
  },
} as const;

export const activatedTask = {
  type: 'object',
  properties: { task_id: { type: 'string', description: '24 hex digits' }, task_name: text },
  required: ['task_id', 'task_name'],
} as const;

export const listTasksQuery = {
  type: 'object',
  properties: {
    from: { type: 'number', description: 'tasks created at or after (unix seconds)' },
    to: { type: 'number', description: 'tasks created at or before (unix seconds, whole-second granularity)' },
    size: { type: 'integer', minimum: 1, description: 'page size (default 100)' },
    offset: { type: 'integer', minimum: 0 },
    cursor: { type: 'string', description: 'next_cursor of the previous page' },
    status: { type: 'string', description: 'only tasks in this state, or in one of several separated by commas (running,queued)' },
    name: { type: 'string', maxLength: 256, description: 'only tasks whose name contains this text (ASCII letters in either case)' },
  },
} as const;

export const task = {
  type: 'object',
  properties: {
    task_id: text,
    task_name: text,
    status: { type: 'string', enum: ['scheduled', 'queued', 'running', 'stopping', 'succeeded', 'failed', 'stopped'] },
    workflow_name: text,
    workflow_version: { type: 'integer' },
    user_name: text,
    startTime: { type: ['number', 'null'] },
    endTime: { type: ['number', 'null'] },
    created_time: epochSeconds,
    process: { type: 'object', additionalProperties: true },
  },
  required: ['task_id', 'task_name', 'status'],
} as const;

export const taskList = {
  type: 'object',
  properties: {
    task_list: { type: 'array', items: task },
    count: { type: 'integer' },
    total: { type: 'integer' },
    next_cursor: { type: ['string', 'null'] },
  },
  required: ['task_list', 'count', 'total'],
} as const;

export const job = {
  type: 'object',
  properties: {
    job_id: text,
    name: text,
    status: { type: 'string', enum: ['waiting', 'queued', 'running', 'succeeded', 'failed', 'cancelled'] },
    startTime: { type: ['number', 'null'] },
    endTime: { type: ['number', 'null'] },
  },
  required: ['job_id', 'name', 'status'],
} as const;

export const jobList = { type: 'object', properties: { jobs: { type: 'array', items: job } }, required: ['jobs'] } as const;

export const jobInfo = {
  type: 'object',
  properties: { ...job.properties, Log_downloadURL: { type: 'string', description: 'an unsigned URL of the log; empty while there is none' } },
  required: ['job_id', 'name', 'status', 'Log_downloadURL'],
} as const;

export const jobCommand = { type: 'object', properties: { cmd: text }, required: ['cmd'] } as const;

export const taskEvents = { type: 'object', properties: { events: { type: 'array', items: { type: 'object', additionalProperties: true } } } } as const;
