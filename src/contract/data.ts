/** The data store routes' answers (docs/data.md). */

export const dataItem = {
  type: 'object',
  properties: {
    name: { type: 'string', description: '<account>:/<path>' },
    size: { type: 'integer', description: 'bytes' },
    modified_time: { type: 'number', description: 'unix seconds' },
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
