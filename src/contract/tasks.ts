/** ActivateWorkflow (INTERFACE.md 4.15) and the task and job routes (docs/wire.md §2, docs/tasks.md). */
import type { FromSchema } from 'json-schema-to-ts';
import { version } from './common.js';
import { JOB_STATUSES, TASK_STATUSES } from './states.js';
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

/** The body and query as their schemas let them through: what the domain's task operations take (domain/tasks/service.ts). */
export type ActivateWorkflowBody = FromSchema<typeof activateWorkflowBody>;
export type ListTasksQuery = FromSchema<typeof listTasksQuery>;

const time = { type: ['number', 'null'], description: 'unix seconds; null while unknown' } as const;

export const taskProgress = {
  type: 'object',
  properties: { done: { type: 'integer' }, total: { type: 'integer' }, running: { type: 'integer' }, failed: { type: 'integer' }, percent: { type: 'number' } },
  required: ['done', 'total', 'running', 'failed', 'percent'],
  additionalProperties: false,
} as const;

/** The task object (docs/wire.md §4, docs/tasks.md); domain/tasks/views.ts writes it. */
export const task = {
  type: 'object',
  properties: {
    task_id: { type: 'string', description: '24 hex digits' },
    task_name: text,
    status: { type: 'string', enum: TASK_STATUSES },
    reason: { type: 'string', description: 'why the task is in its state (a failed job, a stop)' },
    workflow_name: text,
    workflow_version: { type: 'integer' },
    workflow_id: text,
    user_name: text,
    account: text,
    project: text,
    description: text,
    createTime: time,
    startTime: time,
    endTime: time,
    scheduleTime: time,
    stop_requested: { type: 'boolean' },
    process: { type: 'number', description: 'percent done' },
    progress: taskProgress,
  },
  required: ['task_id', 'task_name', 'status', 'reason', 'workflow_name', 'workflow_version', 'user_name', 'createTime', 'startTime', 'endTime', 'progress'],
} as const;

export const taskList = {
  type: 'object',
  properties: {
    task_list: { type: 'array', items: task },
    count: { type: 'integer', description: 'tasks in this page' },
    total: {
      type: ['integer', 'null'],
      description: 'tasks in the range (all its pages); null when the list is filtered (status, name) and more than total_more_than tasks match',
    },
    total_more_than: { type: 'integer', description: 'only with total null: more than this many tasks match the filters (1000)' },
    next_cursor: { type: ['string', 'null'], description: 'pass as cursor for the next page; null on the last one' },
  },
  required: ['task_list', 'count', 'total'],
  additionalProperties: false,
} as const;

/** One ended attempt of a job (docs/tasks.md, "Retries"). */
export const jobAttempt = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    outcome: { type: 'string', enum: ['succeeded', 'failed', 'out_of_memory', 'killed', 'timed_out', 'lost'] },
    exit_code: { type: ['integer', 'null'] },
    reason: text,
    mem: { type: 'string', description: 'the memory the attempt was given, e.g. 2048m (0m: no limit)' },
    peak_rss_bytes: { type: ['integer', 'null'], description: 'the highest resident memory sampled, when known' },
    startTime: time,
    endTime: time,
  },
  required: ['attempt', 'outcome', 'exit_code', 'reason', 'mem', 'peak_rss_bytes', 'startTime', 'endTime'],
  additionalProperties: false,
} as const;

/** A job's call-cache explanation (docs/tasks.md, "Explain a miss"). */
export const jobCacheExplanation = {
  type: 'object',
  properties: {
    job_id: text,
    cache_hit: { type: 'boolean' },
    cached_from: { type: ['string', 'null'] },
    cache_key: { type: ['string', 'null'], description: "the job's key; null when none was computed (caching was off for it)" },
    summary: { type: 'string', description: 'the explanation in one sentence' },
    source: {
      type: ['object', 'null'],
      description: 'for a hit, the job reused and the language it was written in (a GeneDock tool, a CWL CommandLineTool, a WDL task...)',
      properties: { job_id: text, task_id: text, task_name: { type: 'string' }, name: { type: 'string' }, language: text },
      required: ['job_id', 'task_id', 'task_name', 'name', 'language'],
      additionalProperties: false,
    },
    nearest: {
      type: ['object', 'null'],
      description: 'the earlier job of the same tool whose key is nearest, or null when there is none',
      properties: { job_id: text, task_id: text, status: text, endTime: time, cache_key: text },
      required: ['job_id', 'task_id', 'status', 'endTime', 'cache_key'],
      additionalProperties: false,
    },
    differences: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          part: { type: 'string', enum: ['image', 'image_digest', 'entrypoint', 'environment', 'network', 'command', 'input', 'output', 'streams'] },
          name: { type: 'string', description: "the input's name in the key, or the environment variable's" },
          this: {},
          other: {},
          message: text,
        },
        required: ['part', 'this', 'other', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['job_id', 'cache_hit', 'cached_from', 'cache_key', 'summary', 'source', 'nearest', 'differences'],
  additionalProperties: false,
} as const;

/** The job object (docs/wire.md §4); domain/tasks/views.ts writes it. */
export const job = {
  type: 'object',
  properties: {
    job_id: { type: 'string', description: '<task id>_<24 hex>_<node id>' },
    task_id: text,
    name: { type: 'string', description: "the node's tool" },
    node_id: text,
    alias: text,
    status: { type: 'string', enum: JOB_STATUSES },
    reason: text,
    exit_code: { type: ['integer', 'null'] },
    attempt: { type: 'integer' },
    cpu: { type: 'number' },
    mem: { type: 'string' },
    disk: {
      type: ['string', 'null'],
      description:
        "the disk space the job asked for, as mem is written ('1024m': a WDL task's runtime disks or a restart's debug_params disk, checked " +
        "against the data root's free space when the job started, not reserved); null: none asked",
    },
    startTime: time,
    endTime: time,
    image_digest: { type: ['string', 'null'], description: 'the digest of the image the job ran in (container executors)' },
    external_id: { type: ['string', 'null'], description: "the job's handle outside gdflow: a Slurm job id, a container's name" },
    cached_from: { type: ['string', 'null'], description: 'the job whose outputs this one reused from the call cache; null when it ran' },
    attempts: { type: 'array', description: 'every attempt that ended, oldest first', items: jobAttempt },
    waiting_for: {
      type: ['string', 'null'],
      description:
        'what a job that has not started waits for ("waiting for 2 CPUs (1 free)", "waiting for upstream job align", ' +
        '"waiting for Slurm to start it: Priority (...)", "waiting for its image ... to be pulled"); null once it runs or ended',
    },
    upstream: { type: 'array', items: text, description: "the node ids of the jobs it waits for: the links of the task's graph" },
    parent: {
      type: ['string', 'null'],
      description: "the node id of the job whose expansion added it at run time (a CWL scatter's or subworkflow's step), or null",
    },
  },
  required: ['job_id', 'name', 'node_id', 'alias', 'status', 'reason', 'exit_code', 'attempt', 'startTime', 'endTime'],
} as const;

export const jobList = { type: 'object', properties: { jobs: { type: 'array', items: job } }, required: ['jobs'], additionalProperties: false } as const;

export const jobInfo = {
  type: 'object',
  properties: {
    ...job.properties,
    cmd: { type: 'string', description: 'the rendered command' },
    Log_downloadURL: { type: 'string', description: 'an absolute URL of the log, readable with a plain unsigned GET; empty while there is none' },
  },
  required: [...job.required, 'cmd', 'Log_downloadURL'],
} as const;

export const jobCommand = { type: 'object', properties: { cmd: text }, required: ['cmd'] } as const;

export const taskEvent = {
  type: 'object',
  properties: {
    job_id: { type: ['string', 'null'], description: 'null for an event of the task itself' },
    from: { type: ['string', 'null'] },
    to: text,
    reason: text,
    at: { type: 'number', description: 'unix seconds' },
  },
  required: ['job_id', 'from', 'to', 'reason', 'at'],
  additionalProperties: false,
} as const;

export const taskEvents = {
  type: 'object',
  properties: { events: { type: 'array', items: taskEvent } },
  required: ['events'],
  additionalProperties: false,
} as const;

/** One planned output of a task (docs/tasks.md, "Outputs"); domain/tasks/outputs.ts writes it. */
export const taskOutput = {
  type: 'object',
  properties: {
    name: { type: 'string', description: '<account>:/<path>: where the store step puts the item' },
    description: text,
    state: {
      type: 'string',
      enum: ['stored', 'pending', 'not_stored', 'replaced', 'missing'],
      description:
        'stored: the item is what the task stored; pending: not stored yet; not_stored: the task ended without storing it; ' +
        'replaced: something else was put there since; missing: deleted since',
    },
    partial: { type: 'boolean', description: 'stored by a task that failed or was stopped: part of what the task would have stored' },
    size: { type: ['integer', 'null'], description: "the item's bytes, when it is what the task stored" },
    modified_time: { type: ['number', 'null'], description: 'unix seconds, when it is what the task stored' },
    node_id: { type: ['string', 'null'], description: 'the node whose job wrote the file' },
    job_id: { type: ['string', 'null'], description: 'the job that wrote the file' },
    output: { type: ['string', 'null'], description: "that job's output (port) the file is" },
    store_node_id: { type: 'string', description: 'the store step' },
    store_job_id: text,
  },
  required: ['name', 'description', 'state', 'partial', 'size', 'modified_time', 'node_id', 'job_id', 'output', 'store_node_id', 'store_job_id'],
  additionalProperties: false,
} as const;

export const taskOutputs = {
  type: 'object',
  properties: {
    task_id: text,
    task_name: text,
    status: task.properties.status,
    partial: { type: 'boolean', description: 'the task failed or was stopped: what it stored is a part of what it would have' },
    outputs: { type: 'array', items: taskOutput, description: "every item the task's store steps put, or were to put, in the data store, in plan order" },
    count: { type: 'integer' },
  },
  required: ['task_id', 'task_name', 'status', 'partial', 'outputs', 'count'],
  additionalProperties: false,
} as const;
