/**
 * JSON Schemas shared by the routes: path parameters, versions, the error body. Every schema is a plain
 * `as const` object: Fastify validates requests with it, json-schema-to-ts derives the TypeScript types of the
 * handlers and of the SDK from it, and the OpenAPI document (server/openapi.ts) is built from it.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { MAX_VERSION } from './limits.js';

/** The error body of every 4xx and 5xx (docs/wire.md §3). */
export const errorBody = {
  type: 'object',
  description: 'A GeneDock error: the code and the English and Chinese messages of INTERFACE.md §7 or docs/api.md.',
  properties: {
    error_code: { type: 'string' },
    error_message: { type: 'string' },
    error_message_chs: { type: 'string' },
  },
  required: ['error_code', 'error_message', 'error_message_chs'],
  additionalProperties: false,
} as const;

/** A positive integer version (tool_version, workflow_version) in a JSON body. */
export const version = { type: 'integer', minimum: 1, maximum: MAX_VERSION } as const;

/**
 * A version in the query: decimal digits only. It is typed as text, not as an integer, because query text is
 * coerced to a schema's integer with JavaScript's Number(), which reads `1e0`, `0x1`, `0b1`, ` 1`, `+1` and `1.0`
 * all as 1; the domain reads the digits (domain/names.ts).
 */
const queryVersion = (absent?: string) =>
  ({ type: 'string', pattern: '^0*[1-9][0-9]{0,8}$', description: `a positive integer in decimal digits${absent ? `; absent: ${absent}` : ''}` }) as const;

const segment = (description: string) => ({ type: 'string', minLength: 1, description }) as const;

export const projectParams = {
  type: 'object',
  properties: { account: segment('account name'), project: segment('project name') },
  required: ['account', 'project'],
} as const;

export const toolParams = {
  type: 'object',
  properties: { ...projectParams.properties, tool: segment('tool name') },
  required: ['account', 'project', 'tool'],
} as const;

export const workflowParams = {
  type: 'object',
  properties: { ...projectParams.properties, workflow: segment('workflow name') },
  required: ['account', 'project', 'workflow'],
} as const;

export const taskParams = {
  type: 'object',
  properties: { ...projectParams.properties, task: segment('task id (24 hex digits)') },
  required: ['account', 'project', 'task'],
} as const;

export const jobParams = {
  type: 'object',
  properties: { ...taskParams.properties, job: segment('job id (<task id>_<24 hex>_<node id>)') },
  required: ['account', 'project', 'task', 'job'],
} as const;

export const toolVersionQuery = {
  type: 'object',
  properties: { tool_version: queryVersion('every version (GetTool)') },
} as const;

export const latestToolVersionQuery = {
  type: 'object',
  properties: { tool_version: queryVersion('the latest checked version') },
} as const;

export const requiredToolVersionQuery = {
  type: 'object',
  properties: { tool_version: queryVersion() },
  required: ['tool_version'],
} as const;

export const workflowVersionQuery = {
  type: 'object',
  properties: { workflow_version: queryVersion('every version (GetWorkflow)') },
} as const;

export const latestWorkflowVersionQuery = {
  type: 'object',
  properties: { workflow_version: queryVersion('the latest checked version') },
} as const;

export const requiredWorkflowVersionQuery = {
  type: 'object',
  properties: { workflow_version: queryVersion() },
  required: ['workflow_version'],
} as const;

/** A tool or workflow version in a query, as the schemas above let it through: decimal digits, 1 to 999999999. */
export type ToolVersionQuery = FromSchema<typeof toolVersionQuery>;
export type RequiredToolVersionQuery = FromSchema<typeof requiredToolVersionQuery>;
export type WorkflowVersionQuery = FromSchema<typeof workflowVersionQuery>;
export type RequiredWorkflowVersionQuery = FromSchema<typeof requiredWorkflowVersionQuery>;

/** Any JSON object (a member whose structure the domain checks, or one the clients read loosely). */
export const anyObject = { type: 'object', additionalProperties: true } as const;

/** Seconds since the epoch with a fraction, as timestamps travel in responses. */
export const epochSeconds = { type: 'number', description: 'seconds since the epoch' } as const;
