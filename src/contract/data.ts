/** The data store routes' answers (docs/data.md). */

/** Which task, job and store step put an item in the store (docs/data.md, "Provenance"). */
export const producedBy = {
  type: ['object', 'null'],
  description: 'the task and job that produced the item, while it is what that task stored; null for an upload, or when not known',
  properties: {
    task_id: { type: 'string' },
    task_name: { type: 'string' },
    task_status: { type: ['string', 'null'], description: "the task's state now; null when the task was deleted" },
    partial: { type: 'boolean', description: 'the task failed or was stopped: the item is one of its partial outputs' },
    node_id: { type: ['string', 'null'], description: 'the node whose job wrote the file' },
    job_id: { type: ['string', 'null'], description: 'the job that wrote the file' },
    store_node_id: { type: 'string', description: 'the store step that put it here' },
    store_job_id: { type: 'string' },
    stored_time: { type: 'number', description: 'unix seconds' },
  },
  required: ['task_id', 'task_name', 'task_status', 'partial', 'node_id', 'job_id', 'store_node_id', 'store_job_id', 'stored_time'],
  additionalProperties: false,
} as const;

export const dataItem = {
  type: 'object',
  properties: {
    name: { type: 'string', description: '<account>:/<path>' },
    size: { type: 'integer', description: 'bytes' },
    modified_time: { type: 'number', description: 'unix seconds' },
    produced_by: producedBy,
  },
  required: ['name', 'size', 'modified_time'],
  additionalProperties: false,
} as const;

export const dataList = {
  type: 'object',
  properties: { items: { type: 'array', items: dataItem }, count: { type: 'integer' } },
  required: ['items', 'count'],
  additionalProperties: false,
} as const;

export const dataPutResult = {
  type: 'object',
  properties: { name: { type: 'string' }, size: { type: 'integer' }, md5: { type: 'string', description: 'hex MD5 of the stored bytes' } },
  required: ['name', 'size', 'md5'],
  additionalProperties: false,
} as const;

export const callerIdentity = {
  type: 'object',
  properties: { account_name: { type: 'string' }, user_name: { type: 'string' } },
  required: ['account_name', 'user_name'],
  additionalProperties: false,
} as const;
