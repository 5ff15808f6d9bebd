import { InUse, VersionConflict, type Store, type Tool } from '../../store/store.js';
import { authorizedMethods, openProject, visibilityFor, type Caller } from '../access.js';
import { actorOf, audited } from '../audit.js';
import type { CreateToolBody, PutToolBody } from '../../contract/tools.js';
import type { RequiredToolVersionQuery, ToolVersionQuery } from '../../contract/common.js';
import { invalid, notFound } from '../errors.js';
import { checkName, queryVersion } from '../names.js';
import { exportTool } from '../cwl/export/index.js';
import { cwlSourceOf } from '../cwl/imports/source.js';
import { exportedAsStored } from '../cwl/export/work-dir-literals.js';
import type { CwlDataLocations } from '../cwl/runs/locations.js';
import { readToolDefinition, validateToolDefinition } from './definition.js';
import { toolAsRead, toolDetails, toolParameterTemplate, toolSummary, toolsUrl } from './views.js';

/** Where a request points: the caller, `/accounts/<account>/projects/<project>/`, and the base URL for links. */
export interface Scope {
  caller: Caller;
  account: string;
  project: string;
  baseUrl: string;
}

/** Why a version imported from CWL is not put again: its definition is a view of its CWL document. */
export const importedFromCwl = (kind: 'tool' | 'workflow', name: string, version: number): string =>
  `${kind} '${name}' version ${version} was imported from CWL: its definition is a view of its CWL document; import the changed document (gdflow cwl import) to make a new version`;

/**
 * The seven tool operations of INTERFACE.md 4.1–4.7. Bodies and queries arrive as their schemas let them through
 * (contract/tools.ts, contract/common.ts): what is checked here is what a schema cannot say (the name rule, versions
 * that exist, the definition's meaning).
 */
export class ToolService {
  constructor(
    private readonly store: Store,
    /** The data store, for the files an imported document's export writes as literals (none: kept as stored). */
    private readonly files?: CwlDataLocations,
  ) {}

  /** 4.1 CreateTool: the first version is 1, each later create of the name adds 1. */
  async create(scope: Scope, body: CreateToolBody): Promise<Tool> {
    const name = checkName('tool_name', body.tool_name);
    const description = body.description ?? '';
    const expectedVersion = body.tool_version;
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    try {
      // The store adds the version it takes to the entry's target.
      const audit = audited(actorOf(scope.caller), 'CreateTool', project.accountName, `${project.accountName}/${project.name}/${name}`);
      return await this.store.createTool(
        {
          projectId: project.id,
          name,
          description,
          visibility: visibilityFor(project.accountName),
          ...(expectedVersion !== undefined ? { expectedVersion } : {}),
        },
        audit,
      );
    } catch (error) {
      if (error instanceof VersionConflict) {
        throw invalid(`tool_version ${expectedVersion} does not match the next version ${error.nextVersion} of tool '${name}'`);
      }
      throw error;
    }
  }

  /** 4.2 PutTool: validate the whole definition; a valid one makes the version `checked`. */
  async put(scope: Scope, toolName: string, body: PutToolBody): Promise<void> {
    const name = checkName('tool_name', toolName);
    const { tool_version: version, description } = body;
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const tool = await this.store.getTool(project.id, name, version);
    if (!tool) throw invalid(`tool '${name}' version ${version} does not exist`);
    if (tool.cwl !== null) throw invalid(importedFromCwl('tool', name, version));
    const { stored, definition } = validateToolDefinition(body.configs, name);
    // The store checks the pins and writes atomically, so a workflow cannot pin the version in between.
    try {
      await this.store.putTool(
        tool.id,
        { ...(description !== undefined ? { description } : {}), configs: stored, category: definition.category, status: 'checked' },
        { refuseIfPinned: true },
        audited(actorOf(scope.caller), 'PutTool', project.accountName, `${project.accountName}/${project.name}/${name}:${version}`),
      );
    } catch (error) {
      if (error instanceof InUse) {
        throw invalid(`tool '${name}' version ${version} is pinned by workflow ${error.by.join(', ')}; create a new tool version instead`);
      }
      throw error;
    }
  }

  /** 4.3 DeleteTool: one version; refused while a workflow pins it. */
  async delete(scope: Scope, toolName: string, query: RequiredToolVersionQuery): Promise<void> {
    const name = checkName('tool_name', toolName);
    const version = queryVersion(query.tool_version);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const tool = await this.store.getTool(project.id, name, version);
    if (!tool) throw invalid(`tool '${name}' version ${version} does not exist`);
    const users = await this.store.workflowsUsingTool(tool.id);
    if (users.length > 0) throw invalid(`tool '${name}' version ${version} is used by workflow ${users.join(', ')}`);
    try {
      await this.store.deleteTool(
        tool.id,
        audited(actorOf(scope.caller), 'DeleteTool', project.accountName, `${project.accountName}/${project.name}/${name}:${version}`),
      );
    } catch (error) {
      if (error instanceof InUse) throw invalid(`tool '${name}' version ${version} is used by workflow ${error.by.join(', ')}`);
      throw error;
    }
  }

  /** 4.4 ListTool: one group per name, one summary per version; 404 when there is nothing. */
  async list(scope: Scope) {
    const { project, owner } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const tools = await this.store.listTools(project.id);
    if (tools.length === 0) throw notFound(`project '${project.name}' has no tools`);
    const methods = authorizedMethods(owner);
    const groups = new Map<string, ReturnType<typeof toolSummary>[]>();
    for (const tool of tools) {
      const group = groups.get(tool.name) ?? [];
      group.push(toolSummary(tool, scope.baseUrl, methods));
      groups.set(tool.name, group);
    }
    return { items: [...groups.values()], tool_url: toolsUrl(scope.baseUrl, { accountName: project.accountName, projectName: project.name }) };
  }

  /** The versions a read asks for: one when `tool_version` is given, else all. */
  private async versions(scope: Scope, toolName: string, query: ToolVersionQuery): Promise<{ tools: Tool[]; latest: number }> {
    const name = checkName('tool_name', toolName);
    const version = queryVersion(query.tool_version);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const all = await this.store.getToolVersions(project.id, name);
    const tools = version === undefined ? all : all.filter((t) => t.version === version);
    if (tools.length === 0) {
      throw notFound(version === undefined ? `tool '${name}' does not exist` : `tool '${name}' version ${version} does not exist`);
    }
    return { tools, latest: all[all.length - 1]!.version };
  }

  /** 4.5 GetTool. */
  async get(scope: Scope, toolName: string, query: ToolVersionQuery) {
    const { tools, latest } = await this.versions(scope, toolName, query);
    return { tools: tools.map((t) => toolAsRead(t, latest)) };
  }

  /**
   * The one version GetToolParameterTemplate and GetToolDetails answer for: the one asked, or without
   * `tool_version` the latest checked one (gdpy's get_tool_param('name') sends no version, docs/wire.md §2).
   */
  private async oneVersion(scope: Scope, toolName: string, query: ToolVersionQuery): Promise<Tool> {
    const name = checkName('tool_name', toolName);
    const version = queryVersion(query.tool_version);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    if (version !== undefined) {
      const tool = await this.store.getTool(project.id, name, version);
      if (!tool) throw notFound(`tool '${name}' version ${version} does not exist`);
      return tool;
    }
    const all = await this.store.getToolVersions(project.id, name);
    const latest = all.filter((t) => t.status === 'checked').at(-1);
    if (!latest) throw notFound(all.length === 0 ? `tool '${name}' does not exist` : `tool '${name}' has no checked version (put a definition first)`);
    return latest;
  }

  /** The version asked, or the latest checked one, as a CWL v1.2 document (docs/cwl.md, "Export"). */
  async exportCwl(scope: Scope, toolName: string, query: ToolVersionQuery, gdflowVersion: string): Promise<Record<string, unknown>> {
    const tool = await this.oneVersion(scope, toolName, query);
    const imported = cwlSourceOf(tool.cwl);
    if (imported) return exportedAsStored(await exportTool({ cwlDocument: imported.document }, { gdflowVersion }), tool.accountName, this.files);
    if (tool.status !== 'checked' || !tool.configs) throw invalid(`tool '${tool.name}' version ${tool.version} has no valid definition yet (status unchecked)`);
    const source = {
      account: tool.accountName,
      project: tool.projectName,
      name: tool.name,
      version: tool.version,
      definition: readToolDefinition(tool.configs),
    };
    return exportTool(source, { gdflowVersion });
  }

  /** 4.6 GetToolParameterTemplate: for the version asked, or the latest checked one. */
  async parameterTemplate(scope: Scope, toolName: string, query: ToolVersionQuery) {
    return { parameter: [toolParameterTemplate(await this.oneVersion(scope, toolName, query))] };
  }

  /** 4.7 GetToolDetails: for the version asked, or the latest checked one. */
  async details(scope: Scope, toolName: string, query: ToolVersionQuery) {
    return [toolDetails(await this.oneVersion(scope, toolName, query))];
  }
}
