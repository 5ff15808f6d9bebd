import type { Tool } from '../../store/store.js';
import { formatList, isObject } from '../json.js';
import { formatDateTime, roundTime } from '../time.js';
import { readToolDefinition } from './definition.js';

/** The response shapes of the tool operations (INTERFACE.md 2.1–2.4, docs/wire.md §4). */

export const toolsUrl = (baseUrl: string, tool: Pick<Tool, 'accountName' | 'projectName'>): string =>
  `${baseUrl}/accounts/${encodeURIComponent(tool.accountName)}/projects/${encodeURIComponent(tool.projectName)}/tools/`;

export const toolUrl = (baseUrl: string, tool: Tool): string => `${toolsUrl(baseUrl, tool)}${encodeURIComponent(tool.name)}/?tool_version=${tool.version}`;

/** 2.1: one version of a tool as listed. */
export function toolSummary(tool: Tool, baseUrl: string, methods: string[]) {
  return {
    tool_url: toolUrl(baseUrl, tool),
    tool_name: tool.name,
    tool_version: tool.version,
    tool_id: tool.id,
    description: tool.description,
    status: tool.status,
    type: tool.visibility,
    category: tool.category,
    authorized_methods: methods,
    modified_time: roundTime(tool.modifiedAt),
    created_time: roundTime(tool.createdAt),
  };
}

/**
 * Ports with `formats` typed as INTERFACE.md 2.2 types them (an input's a list, an output's a string), also where a
 * definition was stored before PutTool held to that: what GetTool returns can be put again (docs/wire.md §7).
 */
function typedFormats(ports: unknown, kind: 'inputs' | 'outputs'): unknown {
  if (!isObject(ports)) return ports;
  const typed = (port: unknown): unknown => {
    if (!isObject(port) || port.formats === undefined || port.formats === null) return port;
    if (kind === 'inputs' && typeof port.formats === 'string') return { ...port, formats: formatList(port.formats) };
    if (kind === 'outputs' && Array.isArray(port.formats)) return { ...port, formats: formatList(port.formats).join(',') };
    return port;
  };
  return Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, typed(port)]));
}

/** 2.2 as read: the stored definition plus the members the server maintains. */
export function toolConfigsAsRead(tool: Tool, latestVersion: number): Record<string, unknown> {
  const stored = tool.configs ?? { name: tool.name };
  return {
    ...stored,
    ...('inputs' in stored ? { inputs: typedFormats(stored.inputs, 'inputs') } : {}),
    ...('outputs' in stored ? { outputs: typedFormats(stored.outputs, 'outputs') } : {}),
    _id: tool.id,
    account: tool.accountName,
    document_author: typeof stored.document_author === 'string' && stored.document_author !== '' ? stored.document_author : tool.accountName,
    modified_time: formatDateTime(tool.modifiedAt),
    modified_ts: roundTime(tool.modifiedAt),
    new: tool.version === latestVersion,
    package: stored.package ?? null,
    status: tool.status,
    type: tool.visibility,
    version: tool.version,
  };
}

/** One element of GetTool's `tools`. */
export function toolAsRead(tool: Tool, latestVersion: number) {
  return {
    description: tool.description,
    configs: toolConfigsAsRead(tool, latestVersion),
    status: tool.status,
    modified_time: roundTime(tool.modifiedAt),
    created_time: roundTime(tool.createdAt),
  };
}

/** 2.4: what a workflow editor pastes into a node for this tool. */
export function toolParameterTemplate(tool: Tool) {
  const def = readToolDefinition(tool.configs);
  const ports = (names: string[]) => Object.fromEntries(names.map((name) => [name, [{ enid: '' }]]));
  return {
    account: tool.accountName,
    alias: def.alias,
    app_id: tool.id,
    category: def.category,
    description: tool.description,
    name: tool.name,
    version: tool.version,
    inputs: ports(Object.keys(def.inputs)),
    outputs: ports(Object.keys(def.outputs)),
    parameters: Object.fromEntries(Object.values(def.parameters).map((p) => [p.name, { variable: p.variable, type: p.typeName, value: p.default }])),
  };
}

/** 2.3: the tool details element. */
export function toolDetails(tool: Tool) {
  const def = readToolDefinition(tool.configs);
  const stored = tool.configs ?? {};
  return {
    details: {
      inputs: Object.fromEntries(Object.values(def.inputs).map((p) => [p.name, { minitems: p.minitems, maxitems: p.maxitems, formats: p.formats }])),
      outputs: Object.fromEntries(
        Object.values(def.outputs).map((p) => [p.name, { minitems: p.minitems, maxitems: p.maxitems, formats: p.formats.join(',') }]),
      ),
      parameters: Object.fromEntries(Object.values(def.parameters).map((p) => [p.name, { hint: p.hint, default: p.default, type: p.typeName }])),
      description: tool.description || def.description,
      document_author: typeof stored.document_author === 'string' && stored.document_author !== '' ? stored.document_author : tool.accountName,
      alias: def.alias,
      version: tool.version,
      homepage: typeof stored.homepage === 'string' ? stored.homepage : '',
    },
    modified_time: roundTime(tool.modifiedAt),
    tool_name: tool.name,
  };
}
