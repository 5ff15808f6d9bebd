import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { ActivateWorkflowRequest, RunParameters, ToolDefinition, WorkflowConfigs, WorkflowNode } from '../client/types.js';
import { usageError } from './exit.js';

/**
 * The documents users edit: tools in the `app:` form and workflows in the `workflow:` form of the
 * GeneDock examples, and run parameters as `workflow getparam` prints them. YAML or JSON (JSON is
 * YAML), from a file or `-` for standard input.
 */

type Doc = Record<string, unknown>;

const isObject = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);

export function readDocument(path: string): unknown {
  return parseDocument(readText(path), path);
}

/** A document's text, from a file or `-` for standard input. */
export function readText(path: string): string {
  try {
    return path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error)}`);
  }
}

export function parseDocument(text: string, path: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    // The parser's message ends with the offending line and a caret under the spot: keep them.
    throw usageError(`${path} is not valid YAML or JSON: ${error instanceof Error ? error.message.trimEnd() : String(error)}`);
  }
}

/** Server-maintained members a read tool carries; dropped so an exported document stays editable. */
const SERVER_MEMBERS = ['_id', 'modified_time', 'modified_ts', 'new'];

export function editableTool(configs: Doc): Doc {
  return Object.fromEntries(Object.entries(configs).filter(([key]) => !SERVER_MEMBERS.includes(key)));
}

/**
 * A tool document: `{app: {...}}` (the example form), a bare definition, a PutTool body
 * `{tool_name, configs}`, or a GetTool answer `{tools: [...]}` (its latest version).
 */
export function toolDocument(doc: unknown, path: string): { name: string; description: string | undefined; definition: ToolDefinition } {
  let definition: unknown = doc;
  let name: unknown;
  let description: unknown;
  if (isObject(doc) && isObject(doc.app)) definition = doc.app;
  else if (isObject(doc) && Array.isArray(doc.tools)) {
    const last: unknown = doc.tools[doc.tools.length - 1];
    definition = isObject(last) ? last.configs : undefined;
    if (isObject(last)) description = last.description;
  } else if (isObject(doc) && isObject(doc.configs)) {
    definition = doc.configs;
    name = doc.tool_name;
    description = doc.description;
  }
  if (!isObject(definition)) throw usageError(`${path}: expected a tool definition (a mapping under 'app:'), as in 'gdflow tool get' output`);
  name ??= definition.name;
  if (typeof name !== 'string' || name === '') throw usageError(`${path}: the tool definition has no 'name'`);
  description ??= definition.description;
  return { name, description: typeof description === 'string' ? description.trim() : undefined, definition: { ...editableTool(definition), name } };
}

/**
 * A workflow document: `{workflow: {name, description, nodelist}}` (the example form), a bare
 * `{name, nodelist}`, or a PutWorkflow body `{workflow_name, configs: {nodelist}}`.
 */
export function workflowDocument(doc: unknown, path: string): { name: string | undefined; description: string | undefined; configs: WorkflowConfigs } {
  let body: unknown = doc;
  let name: unknown;
  let description: unknown;
  if (isObject(doc) && isObject(doc.workflow)) body = doc.workflow;
  else if (isObject(doc) && isObject(doc.configs)) {
    name = doc.workflow_name;
    description = doc.description;
    body = doc.configs;
  } else if (isObject(doc) && Array.isArray(doc.workflows)) {
    const last: unknown = doc.workflows[doc.workflows.length - 1];
    body = isObject(last) ? last.configs : undefined;
    if (isObject(last)) description = last.description;
  }
  if (!isObject(body) || !Array.isArray(body.nodelist))
    throw usageError(`${path}: expected a workflow with a 'nodelist' (a mapping under 'workflow:'), as in 'gdflow workflow get' output`);
  name ??= body.name;
  description ??= body.description;
  // Only the node list is the configuration; name, version and account are the document's.
  const { name: _n, description: _d, version: _v, account: _a, ...rest } = body;
  return {
    name: typeof name === 'string' && name !== '' ? name : undefined,
    description: typeof description === 'string' ? description.trim() : undefined,
    configs: { ...rest, nodelist: body.nodelist as WorkflowNode[] },
  };
}

/** The placeholder a workflow document may use in readable `app_id`s for the account that registers it. */
export const ACCOUNT_PLACEHOLDER = '{account}';

/** Whether some node's app_id holds the account placeholder. */
export const usesAccountPlaceholder = (configs: WorkflowConfigs): boolean =>
  configs.nodelist.some((node) => typeof node.app_id === 'string' && node.app_id.includes(ACCOUNT_PLACEHOLDER));

/**
 * The configuration with `{account}` in app_ids replaced by `account`, so that one document (such as
 * examples/demo/align-workflow.yml) serves every account; the server only knows `/<account>/<tool>/<version>`.
 */
export function fillAccount(configs: WorkflowConfigs, account: string): WorkflowConfigs {
  return {
    ...configs,
    nodelist: configs.nodelist.map((node) =>
      typeof node.app_id === 'string' ? { ...node, app_id: node.app_id.replaceAll(ACCOUNT_PLACEHOLDER, account) } : node,
    ),
  };
}

/**
 * Run parameters: the template as `workflow getparam` prints it (`{name, Inputs, Outputs, ...}`),
 * or a whole ActivateWorkflow body `{workflow_name, workflow_version, task_name, parameters}`.
 */
export function runDocument(doc: unknown, path: string): Partial<ActivateWorkflowRequest> & { parameters: RunParameters } {
  if (!isObject(doc))
    throw usageError(`${path}: expected run parameters (a mapping with Inputs, Outputs, Parameters), as 'gdflow workflow getparam' prints them`);
  if (isObject(doc.parameters) && (doc.workflow_name !== undefined || doc.parameters.Inputs !== undefined || doc.parameters.Outputs !== undefined)) {
    const body: Partial<ActivateWorkflowRequest> & { parameters: RunParameters } = { parameters: doc.parameters };
    if (typeof doc.workflow_name === 'string') body.workflow_name = doc.workflow_name;
    if (doc.workflow_version !== undefined && doc.workflow_version !== null) body.workflow_version = Number(doc.workflow_version);
    if (typeof doc.workflow_owner === 'string') body.workflow_owner = doc.workflow_owner;
    if (typeof doc.task_name === 'string') body.task_name = doc.task_name;
    return body;
  }
  return { parameters: doc };
}

/** Parse a `--version` value: a positive integer. */
export function versionOption(value: string | undefined, flag = '--version'): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw usageError(`${flag} must be a positive integer, not '${value}'`);
  return Number(value);
}

export function positiveInteger(value: string, flag: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw usageError(`${flag} must be a positive integer, not '${value}'`);
  return Number(value);
}

/** Parse a duration option in seconds (fractions allowed), e.g. `--interval 0.5`. */
export function secondsOption(value: string, flag: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) throw usageError(`${flag} must be a positive number of seconds, not '${value}'`);
  return seconds;
}
