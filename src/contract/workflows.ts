/**
 * The workflow operations' schemas (INTERFACE.md 2.5–2.8, 4.8–4.14, and the run-template update of docs/wire.md
 * §2). A workflow's graph (which nodes exist, what their links join) is the domain's to check
 * (domain/workflows/graph.ts); the types of its members are checked here.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { epochSeconds, version } from './common.js';

const text = { type: 'string' } as const;
/** `{enid}` link ends: a list of them, or one (load and store steps), or null for none. */
const links = {
  type: ['object', 'null'],
  additionalProperties: {
    anyOf: [
      { type: 'array', items: { type: 'object', properties: { enid: { type: ['string', 'null'] } } } },
      { type: 'object', properties: { enid: { type: ['string', 'null'] } } },
    ],
  },
} as const;

export const workflowNode = {
  type: 'object',
  properties: {
    node_id: text,
    app_id: { type: 'string', description: "the tool's _id, /<account>/<tool>/<version>, or a load or store step" },
    name: text,
    alias: text,
    inputs: links,
    outputs: links,
    parameters: { type: ['object', 'null'], additionalProperties: { type: ['object', 'null'], properties: { variable: { type: 'boolean' } } } },
  },
} as const;

/** INTERFACE.md 2.7. */
export const workflowConfigs = {
  type: 'object',
  properties: { nodelist: { type: 'array', items: workflowNode } },
} as const;

export const createWorkflowBody = {
  type: 'object',
  properties: {
    workflow_name: { type: 'string', description: '3 to 128 letters, digits, - and _, starting with a letter' },
    description: text,
    workflow_version: { ...version, description: 'the next version (1 for a new workflow); absent: the next one' },
  },
  required: ['workflow_name'],
} as const;

export const putWorkflowBody = {
  type: 'object',
  properties: { workflow_version: version, description: text, configs: workflowConfigs },
  required: ['workflow_version'],
} as const;

/** INTERFACE.md 2.8: the domain checks it against the workflow (domain/workflows/run-template.ts). */
export const runParameters = {
  type: 'object',
  description: 'run parameters: Inputs by load node, Outputs by store node, Parameters by tool node (INTERFACE.md 2.8)',
  properties: {
    name: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    Inputs: { type: ['object', 'null'] },
    Outputs: { type: ['object', 'null'] },
    Parameters: { type: ['object', 'null'] },
    Property: { type: ['object', 'null'] },
    Conditions: { type: ['object', 'null'] },
  },
} as const;

export const setRunTemplateBody = {
  type: 'object',
  properties: { workflow_version: version, parameters: runParameters },
  required: ['workflow_version'],
} as const;

/** The bodies as their schemas let them through: what the domain's workflow operations take (domain/workflows/service.ts). */
export type CreateWorkflowBody = FromSchema<typeof createWorkflowBody>;
export type PutWorkflowBody = FromSchema<typeof putWorkflowBody>;
export type SetRunTemplateBody = FromSchema<typeof setRunTemplateBody>;

const summaryMembers = {
  workflow_url: text,
  workflow_name: text,
  workflow_version: { type: 'integer' },
  workflow_id: { type: 'string', description: '24 hex digits' },
  description: text,
  status: { type: 'string', enum: ['checked', 'unchecked'] },
  authorized_methods: { type: 'array', items: { type: 'string' } },
  modified_time: epochSeconds,
  created_time: epochSeconds,
} as const;

export const workflowSummary = { type: 'object', properties: summaryMembers, required: ['workflow_name', 'workflow_version', 'workflow_id'] } as const;

export const workflowList = {
  type: 'object',
  properties: {
    items: { type: 'array', description: 'one list per workflow name, one summary per version', items: { type: 'array', items: workflowSummary } },
    workflow_url: text,
  },
  required: ['items'],
} as const;

export const getWorkflowResponse = {
  type: 'object',
  properties: {
    workflows: {
      type: 'array',
      items: { type: 'object', properties: { version: { type: 'integer' }, description: text, status: text, configs: workflowConfigs } },
    },
  },
  required: ['workflows'],
} as const;

export const executableWorkflowResponse = {
  type: 'object',
  properties: { parameter: runParameters },
  required: ['parameter'],
} as const;
