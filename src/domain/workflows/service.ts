import { VersionConflict, type Store, type Workflow } from '../../store/store.js';
import { authorizedMethods, openProject, visibilityFor } from '../access.js';
import { actorOf, audited } from '../audit.js';
import type { RequiredWorkflowVersionQuery, WorkflowVersionQuery } from '../../contract/common.js';
import type { CreateWorkflowBody, PutWorkflowBody, SetRunTemplateBody } from '../../contract/workflows.js';
import { invalid, notFound } from '../errors.js';
import { isObject } from '../json.js';
import { checkName, queryVersion } from '../names.js';
import { exportWorkflow } from '../cwl/export/index.js';
import { cwlGraphView } from '../cwl/imports/graph-view.js';
import { cwlRunTemplate } from '../cwl/imports/run-template.js';
import { cwlSourceOf } from '../cwl/imports/source.js';
import { exportedAsStored } from '../cwl/export/work-dir-literals.js';
import type { CwlDataLocations } from '../cwl/runs/locations.js';
import { loadDocument } from '../cwl/document/load.js';
import { InMemoryDocumentSource } from '../cwl/document/source.js';
import type { CwlProcess } from '../cwl/model.js';
import { CWL_DOCUMENT_URI } from '../cwl/runs/plan.js';
import { importedFromCwl, type Scope } from '../tools/service.js';
import { buildGraph, toolAppIds, type WorkflowGraph } from './graph.js';
import { applySavedTemplate, buildRunTemplate, type RunTemplate } from './run-template.js';
import { resolveTools } from './tool-resolver.js';
import { graphView, workflowAsRead, workflowSummary, workflowsUrl } from './views.js';
import { stringifyExactJson } from '../../contract/exact-json.js';

/** How the audit log names a workflow version. */
const workflowTarget = (w: Workflow): string => `${w.accountName}/${w.projectName}/${w.name}:${w.version}`;

/**
 * The workflow operations of INTERFACE.md 4.8–4.14, the run-template update and the graph view. Bodies and queries
 * arrive as their schemas let them through (contract/workflows.ts, contract/common.ts): what is checked here is what
 * a schema cannot say (the name rule, versions that exist, the graph and the template against the workflow).
 */
export class WorkflowService {
  constructor(
    private readonly store: Store,
    /** The data store, for the files an imported document's export writes as literals (none: kept as stored). */
    private readonly files?: CwlDataLocations,
  ) {}

  /** Validate a configuration for the workflow's owner: the graph and the tool versions it pins. */
  async validate(configs: unknown, owner: { accountName: string; projectName: string }): Promise<WorkflowGraph> {
    const resolved = await resolveTools(this.store, toolAppIds(configs), owner);
    for (const [appId, tool] of resolved) {
      if (tool.importedFromCwl) {
        throw invalid(
          `app_id '${appId}' is tool '${tool.name}' version ${tool.version}, imported from CWL: it runs in CWL workflows (gdflow cwl run, gdflow cwl import), not as a node of a GeneDock workflow`,
        );
      }
    }
    return buildGraph(configs, (appId) => resolved.get(appId));
  }

  /** The process of a version imported from CWL, loaded from the document it keeps; undefined for a GeneDock one. */
  async cwlProcess(workflow: Workflow): Promise<CwlProcess | undefined> {
    const source = cwlSourceOf(workflow.cwl);
    if (!source) return undefined;
    const documents = new InMemoryDocumentSource({ [CWL_DOCUMENT_URI]: stringifyExactJson(source.document) });
    return (await loadDocument(`${CWL_DOCUMENT_URI}${source.process}`, documents)).process;
  }

  /** The graph of a stored, checked workflow version. */
  async graphOf(workflow: Workflow): Promise<WorkflowGraph> {
    if (workflow.status !== 'checked' || !workflow.configs) {
      throw invalid(`workflow '${workflow.name}' version ${workflow.version} has no valid configuration yet (status unchecked)`);
    }
    return this.validate(workflow.configs, workflow);
  }

  /** 4.8 CreateWorkflow. */
  async create(scope: Scope, body: CreateWorkflowBody): Promise<Workflow> {
    const name = checkName('workflow_name', body.workflow_name);
    const description = body.description ?? '';
    const expectedVersion = body.workflow_version;
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    try {
      // The store adds the version it takes to the entry's target.
      const audit = audited(actorOf(scope.caller), 'CreateWorkflow', project.accountName, `${project.accountName}/${project.name}/${name}`);
      return await this.store.createWorkflow(
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
        throw invalid(`workflow_version ${expectedVersion} does not match the next version ${error.nextVersion} of workflow '${name}'`);
      }
      throw error;
    }
  }

  private async version(scope: Scope, workflowName: string, version: number, mode: 'read' | 'write') {
    const name = checkName('workflow_name', workflowName);
    const access = await openProject(this.store, scope.caller, scope.account, scope.project, mode);
    const workflow = await this.store.getWorkflow(access.project.id, name, version);
    if (!workflow) throw notFound(`workflow '${name}' version ${version} does not exist`);
    return { workflow, ...access };
  }

  /** 4.9 PutWorkflow: validate the whole graph; pin the tool versions it uses. */
  async put(scope: Scope, workflowName: string, body: PutWorkflowBody): Promise<void> {
    const { description, configs } = body;
    const { workflow } = await this.version(scope, workflowName, body.workflow_version, 'write');
    if (workflow.cwl !== null) throw invalid(importedFromCwl('workflow', workflow.name, workflow.version));
    // Optional in the schema: a version that does not exist is said first.
    if (configs === undefined) throw invalid('configs is required');
    const graph = await this.validate(configs, workflow);
    const toolIds = graph.nodes.flatMap((n) => (n.tool ? [n.tool.id] : []));
    await this.store.putWorkflow(
      workflow.id,
      {
        ...(description !== undefined ? { description } : {}),
        configs,
        status: 'checked',
        toolIds,
      },
      audited(actorOf(scope.caller), 'PutWorkflow', workflow.accountName, workflowTarget(workflow)),
    );
  }

  /** 4.10 GetWorkflow: one version, or all when workflow_version is absent. */
  async get(scope: Scope, workflowName: string, query: WorkflowVersionQuery) {
    const name = checkName('workflow_name', workflowName);
    const version = queryVersion(query.workflow_version);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const all = await this.store.getWorkflowVersions(project.id, name);
    const chosen = version === undefined ? all : all.filter((w) => w.version === version);
    if (chosen.length === 0)
      throw notFound(version === undefined ? `workflow '${name}' does not exist` : `workflow '${name}' version ${version} does not exist`);
    return { workflows: chosen.map(workflowAsRead) };
  }

  /** 4.11 DeleteWorkflow: one version (tasks already started keep running from their own plan). */
  async delete(scope: Scope, workflowName: string, query: RequiredWorkflowVersionQuery): Promise<void> {
    const { workflow } = await this.version(scope, workflowName, queryVersion(query.workflow_version), 'write');
    await this.store.deleteWorkflow(workflow.id, audited(actorOf(scope.caller), 'DeleteWorkflow', workflow.accountName, workflowTarget(workflow)));
  }

  /** 4.12 ListWorkflow. */
  async list(scope: Scope) {
    const { project, owner } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const workflows = await this.store.listWorkflows(project.id);
    if (workflows.length === 0) throw notFound(`project '${project.name}' has no workflows`);
    const methods = authorizedMethods(owner);
    return {
      workflow_url: workflowsUrl(scope.baseUrl, { accountName: project.accountName, projectName: project.name }),
      items: group(workflows).map((versions) => versions.map((w) => workflowSummary(w, scope.baseUrl, methods))),
    };
  }

  /** 4.14 ListExecutableWorkflow: the checked versions. */
  async listExecutable(scope: Scope) {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const workflows = (await this.store.listWorkflows(project.id)).filter((w) => w.status === 'checked');
    if (workflows.length === 0) throw notFound(`project '${project.name}' has no executable workflows`);
    return {
      workflow_url: workflowsUrl(scope.baseUrl, { accountName: project.accountName, projectName: project.name }, 'executable-workflows'),
      items: group(workflows).map((versions) =>
        versions.map((w) => {
          const { authorized_methods: _omit, ...summary } = workflowSummary(w, scope.baseUrl, undefined, 'executable-workflows') as ReturnType<
            typeof workflowSummary
          > & { authorized_methods?: string[] };
          return summary;
        }),
      ),
    };
  }

  /** The computed template of a version with its saved defaults laid over it. */
  async runTemplate(workflow: Workflow): Promise<{ template: RunTemplate; graph: WorkflowGraph }> {
    const graph = await this.graphOf(workflow);
    return { template: applySavedTemplate(buildRunTemplate(graph, workflow.description), workflow.runTemplate), graph };
  }

  /** The template of any version: of its graph, or of its CWL process for one imported from CWL. */
  async template(workflow: Workflow): Promise<RunTemplate> {
    const process = await this.cwlProcess(workflow);
    if (process) return applySavedTemplate(cwlRunTemplate(process, workflow.description), workflow.runTemplate);
    return (await this.runTemplate(workflow)).template;
  }

  /** 4.13 GetExecutableWorkflow. Without workflow_version, the latest checked version. */
  async getExecutable(scope: Scope, workflowName: string, query: WorkflowVersionQuery) {
    const workflow = await this.executableVersion(scope, workflowName, queryVersion(query.workflow_version));
    return { parameter: await this.template(workflow) };
  }

  /** The version a run addresses: the one given, or the latest checked one. */
  async executableVersion(scope: Scope, workflowName: string, version: number | undefined, mode: 'read' | 'write' = 'read'): Promise<Workflow> {
    if (version !== undefined) return (await this.version(scope, workflowName, version, mode)).workflow;
    const name = checkName('workflow_name', workflowName);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, mode);
    const checked = (await this.store.getWorkflowVersions(project.id, name)).filter((w) => w.status === 'checked');
    const latest = checked[checked.length - 1];
    if (!latest) throw notFound(`workflow '${name}' has no executable version`);
    return latest;
  }

  /** docs/wire.md §2 "set run template": save defaults that later GetExecutableWorkflow calls return. */
  async setRunTemplate(scope: Scope, workflowName: string, body: SetRunTemplateBody): Promise<void> {
    const workflow = await this.executableVersion(scope, workflowName, body.workflow_version, 'write');
    const template = await this.template(workflow);
    const parameters = body.parameters;
    // Optional in the schema: a version that does not exist is said first.
    if (parameters === undefined) throw invalid('parameters must be an object (the run-parameter template), not missing');
    for (const section of ['Inputs', 'Outputs', 'Parameters'] as const) {
      const given = parameters[section];
      if (given === undefined || given === null) continue;
      for (const nodeId of Object.keys(given)) {
        if (!(nodeId in template[section])) {
          throw invalid(
            `parameters.${section}.${nodeId} is not a ${section === 'Inputs' ? 'loaddata' : section === 'Outputs' ? 'storedata' : 'tool'} node of workflow '${workflow.name}' version ${workflow.version}`,
          );
        }
        const entry = given[nodeId];
        if (!isObject(entry)) throw invalid(`parameters.${section}.${nodeId} must be an object`);
        if (section !== 'Parameters' && entry.data !== undefined && !Array.isArray(entry.data))
          throw invalid(`parameters.${section}.${nodeId}.data must be a list`);
      }
    }
    await this.store.setRunTemplate(workflow.id, parameters, audited(actorOf(scope.caller), 'SetRunTemplate', workflow.accountName, workflowTarget(workflow)));
  }

  /** The version asked, or the latest checked one, as a CWL v1.2 document with its tools (docs/cwl.md, "Export"). */
  async exportCwl(scope: Scope, workflowName: string, query: WorkflowVersionQuery, gdflowVersion: string): Promise<Record<string, unknown>> {
    const workflow = await this.executableVersion(scope, workflowName, queryVersion(query.workflow_version));
    const imported = cwlSourceOf(workflow.cwl);
    if (imported) return exportedAsStored(await exportWorkflow({ cwlDocument: imported.document }, { gdflowVersion }), workflow.accountName, this.files);
    const { template, graph } = await this.runTemplate(workflow);
    const { accountName: account, projectName: project, name, version, description } = workflow;
    return exportWorkflow({ account, project, name, version, description, graph, template }, { gdflowVersion });
  }

  /** Nodes and edges of a validated version, for the CLI's `workflow graph` and the web console. */
  async graph(scope: Scope, workflowName: string, query: WorkflowVersionQuery) {
    const workflow = await this.executableVersion(scope, workflowName, queryVersion(query.workflow_version));
    if (workflow.cwl !== null) return cwlGraphView(workflow);
    return graphView(workflow, await this.graphOf(workflow));
  }
}

function group(workflows: Workflow[]): Workflow[][] {
  const groups = new Map<string, Workflow[]>();
  for (const w of workflows) groups.set(w.name, [...(groups.get(w.name) ?? []), w]);
  return [...groups.values()];
}
