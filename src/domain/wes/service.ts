import { fileURLToPath } from 'node:url';
import { stringifyExactJson } from '../../contract/exact-json.js';
import type { Job, Store, Task } from '../../store/store.js';
import { openProject, type Caller } from '../access.js';
import { cwlSourceOf } from '../cwl/imports/source.js';
import type { CwlRunService } from '../cwl/runs/service.js';
import { dataLocationOf, type CwlDataLocations } from '../cwl/runs/locations.js';
import { cwlPlanOf } from '../cwl/runs/plan.js';
import type { DataService } from '../data/service.js';
import { invalid, notFound } from '../errors.js';
import { decodePageToken, encodePageToken } from '../ga4gh/page-token.js';
import type { JsonObject } from '../json.js';
import type { LogLinks, TaskService } from '../tasks/service.js';
import { TES_WORKFLOW_NAME } from '../tes/service.js';
import type { Scope } from '../tools/service.js';
import { ATTACHMENTS_BASE, attachmentsDirectory, dataLocationsOf, loadWesDocument, schemaLocationsOf, type RemoteDocuments } from './documents.js';
import { taskNameOf, type WesRunRequest } from './request.js';
import { outputUrls, runLog, runState, runSummary, taskLog, type OutputLinks } from './views.js';

/**
 * GA4GH WES 1.1 on gdflow (docs/ga4gh.md, "WES"). A run is a gdflow task: a CWL run (the CWL run service's, as
 * `gdflow cwl run` starts them) or an ActivateWorkflow of a GeneDock workflow; the same id in WES, the GeneDock task
 * routes and the console. Every task of the project but TES tasks is a run WES lists, whoever started it.
 */

/** Who asks, in which project of their account, the base of links, and whether the client shares this host's file system. */
export interface WesScope {
  caller: Caller;
  project: string;
  baseUrl: string;
  local: boolean;
}

const DEFAULT_RUNS = 256;
const DEFAULT_TASKS = 1000;
/** How many tasks a page of runs reads at most while skipping TES tasks. */
const SCAN_LIMIT = 5000;

const gdflowScope = (scope: WesScope): Scope => ({ caller: scope.caller, account: scope.caller.accountName, project: scope.project, baseUrl: scope.baseUrl });

export class WesService {
  constructor(
    private readonly store: Store,
    private readonly tasks: TaskService,
    private readonly cwlRuns: CwlRunService,
    private readonly data: DataService,
    private readonly locations: CwlDataLocations,
    private readonly logs: LogLinks,
    private readonly remote: RemoteDocuments,
  ) {}

  /** POST /runs: the request read and checked (request.ts), its documents loaded and its attachments stored; then the task. */
  async run(scope: WesScope, request: WesRunRequest): Promise<{ run_id: string }> {
    const { project } = await openProject(this.store, scope.caller, scope.caller.accountName, scope.project, 'write');
    const account = scope.caller.accountName;
    const extra = { wes: request.asPosted };
    const name = taskNameOf(request);
    const stored = attachmentsDirectory(request.attachments);
    const { url } = request;
    if (url.kind === 'registered') {
      const workflow =
        url.version === undefined
          ? (await this.store.getWorkflowVersions(project.id, url.name)).filter((w) => w.status === 'checked').pop()
          : await this.store.getWorkflow(project.id, url.name, url.version);
      if (!workflow)
        throw invalid(
          `workflow_url: workflow '${url.name}'${url.version === undefined ? ' has no executable version' : ` version ${url.version} does not exist`} in ${account}/${project.name}`,
        );
      const source = cwlSourceOf(workflow.cwl);
      if ((source !== undefined) !== (request.type === 'CWL')) {
        throw invalid(
          `workflow_type ${request.type} does not fit workflow '${workflow.name}', which is ${source ? 'imported from CWL: send CWL' : 'a GeneDock workflow: send GeneDock'}`,
        );
      }
      if (!source) {
        const body = {
          workflow_name: workflow.name,
          workflow_version: workflow.version,
          parameters: request.params,
          ...(name !== undefined ? { task_name: name } : {}),
        };
        return { run_id: (await this.tasks.activate(gdflowScope(scope), body, extra)).task_id };
      }
      const job = dataLocationsOf(request.params, ATTACHMENTS_BASE, request.attachments, stored, 'workflow_params') as JsonObject;
      await this.storeAttachments(scope.caller, stored, request.attachments);
      const body = { document: source.document, process: source.process, job, ...(name !== undefined ? { name } : {}) };
      return {
        run_id: (await this.cwlRuns.start(gdflowScope(scope), body, { id: workflow.id, name: workflow.name, version: workflow.version }, extra)).task_id,
      };
    }
    const { packed, base } = await loadWesDocument(request, account, this.locations, this.remote);
    const version = typeof packed.document.cwlVersion === 'string' ? packed.document.cwlVersion : '';
    if (request.typeVersion !== undefined && version !== request.typeVersion) {
      throw invalid(`workflow_type_version ${request.typeVersion} is not the document's cwlVersion ${version}`);
    }
    const document = schemaLocationsOf(
      dataLocationsOf(packed.document, base, request.attachments, stored, 'the document') as JsonObject,
      request.attachments,
      stored,
    );
    // No store keeps a NUL in a text (PostgreSQL refuses one), and no CWL document needs one. Exact: a document's
    // numbers beyond a double's integers are BigInts, which JSON.stringify throws on (a 500 before this).
    if (stringifyExactJson(document).includes('\\u0000')) throw invalid('workflow_url: the document holds a NUL character');
    const job = dataLocationsOf(request.params, base, request.attachments, stored, 'workflow_params') as JsonObject;
    await this.storeAttachments(scope.caller, stored, request.attachments);
    const body = { document, process: packed.process, job, ...(name !== undefined ? { name } : {}) };
    return { run_id: (await this.cwlRuns.start(gdflowScope(scope), body, undefined, extra)).task_id };
  }

  private async storeAttachments(caller: Caller, directory: string, attachments: Map<string, Buffer>): Promise<void> {
    for (const [name, data] of attachments) await this.data.upload(caller, caller.accountName, `${directory}/${name}`, data);
  }

  /** A run of the scope's project, with its jobs; another project's, a TES task's or an unknown id is a 404. */
  private async runOf(scope: WesScope, id: string): Promise<{ task: Task; jobs: Job[] }> {
    const { project } = await openProject(this.store, scope.caller, scope.caller.accountName, scope.project, 'read');
    const task = /^[0-9a-f]{24}$/.test(id) ? await this.store.getTask(id) : undefined;
    if (!task || task.projectId !== project.id || task.deleteRequested || task.workflowName === TES_WORKFLOW_NAME) {
      throw notFound(`run '${id.slice(0, 64)}' does not exist among the runs of ${project.accountName}/${project.name}`);
    }
    return { task, jobs: await this.store.listJobs(task.id) };
  }

  async get(scope: WesScope, id: string): Promise<JsonObject> {
    const { task, jobs } = await this.runOf(scope, id);
    const tasksUrl = `${scope.baseUrl}/ga4gh/wes/v1/runs/${task.id}/tasks`;
    return runLog(task, jobs, tasksUrl, task.status === 'succeeded' ? await this.outputs(scope, task) : null);
  }

  async status(scope: WesScope, id: string): Promise<{ run_id: string; state: string }> {
    const { task, jobs } = await this.runOf(scope, id);
    return { run_id: task.id, state: runState(task, jobs) };
  }

  /** GET /runs: the project's tasks but TES tasks, newest first. */
  async list(scope: WesScope, query: { page_size?: number; page_token?: string }): Promise<JsonObject> {
    const { project } = await openProject(this.store, scope.caller, scope.caller.accountName, scope.project, 'read');
    const size = query.page_size ?? DEFAULT_RUNS;
    let after = query.page_token ? decodePageToken(query.page_token) : undefined;
    const runs: JsonObject[] = [];
    let more = true;
    let last: Task | undefined;
    let scanned = 0;
    while (runs.length < size && more && scanned < SCAN_LIMIT) {
      const page = await this.store.listTasks(project.id, { limit: size - runs.length, ...(after ? { after } : {}), countUpTo: 0 });
      more = page.more;
      scanned += page.tasks.length;
      for (const task of page.tasks) {
        last = task;
        if (task.workflowName !== TES_WORKFLOW_NAME) runs.push(runSummary(task, await this.store.listJobs(task.id)));
      }
      if (page.tasks.length === 0) break;
      after = { createdAt: last!.createdAt, id: last!.id };
    }
    return { runs, ...(more && last ? { next_page_token: encodePageToken(last) } : {}) };
  }

  /** GET /runs/{id}/tasks: the run's jobs in the order they were made, paged by an offset. */
  async taskLogs(scope: WesScope, id: string, query: { page_size?: number; page_token?: string }): Promise<JsonObject> {
    const { task, jobs } = await this.runOf(scope, id);
    const order = new Map(((task.plan.jobs as string[] | undefined) ?? []).map((job, i) => [job, i]));
    jobs.sort((a, b) => (order.get(a.id) ?? order.size) - (order.get(b.id) ?? order.size) || a.id.localeCompare(b.id));
    const from = query.page_token === undefined ? 0 : offsetOf(query.page_token);
    const page = jobs.slice(from, from + (query.page_size ?? DEFAULT_TASKS));
    const task_logs = await Promise.all(
      page.map(async (job) => taskLog(job, (await this.logs.hasLog(job)) ? await this.logs.url(scope.baseUrl, job.id) : undefined)),
    );
    const next = from + page.length;
    return { task_logs, ...(next < jobs.length ? { next_page_token: Buffer.from(String(next)).toString('base64url') } : {}) };
  }

  /** Cancel: as GeneDock's stop (running jobs killed, nothing more starts); an ended run stays as it is. */
  async cancel(scope: WesScope, id: string): Promise<{ run_id: string }> {
    const { task } = await this.runOf(scope, id);
    await this.tasks.stop(gdflowScope(scope), task.id);
    return { run_id: task.id };
  }

  /** A succeeded run's outputs: the CWL output object, or a GeneDock run's stored items by store step. */
  private async outputs(scope: WesScope, task: Task): Promise<JsonObject | null> {
    const account = task.accountName;
    const links: OutputLinks = {
      dataUrl: `${scope.baseUrl}/accounts/${encodeURIComponent(account)}/data`,
      ...(scope.local ? { hostPath: async (path: string, cls: 'File' | 'Directory') => hostPathOf(await this.locations.hostUri(account, path, cls)) } : {}),
    };
    const gdflow = gdflowScope(scope);
    if (cwlPlanOf(task.plan) !== undefined) {
      const run = await this.cwlRuns.get(gdflow, task.id);
      return (await outputUrls(run.outputs, links)) as JsonObject | null;
    }
    const stored = await this.tasks.outputs(gdflow, task.id);
    const out: Record<string, JsonObject[]> = {};
    for (const item of stored.outputs) {
      if (item.state !== 'stored') continue;
      const path = item.name.slice(item.name.indexOf(':') + 1);
      const file = { class: 'File', location: dataLocationOf(path, false), basename: path.slice(path.lastIndexOf('/') + 1), size: item.size };
      (out[item.store_node_id] ??= []).push((await outputUrls(file, links)) as JsonObject);
    }
    return Object.fromEntries(Object.entries(out).map(([node, files]) => [node, files.length === 1 ? files[0] : files]));
  }
}

function hostPathOf(uri: string | undefined): string | undefined {
  return uri === undefined ? undefined : fileURLToPath(uri);
}

function offsetOf(token: string): number {
  const text = token.length > 20 ? '' : Buffer.from(token, 'base64url').toString('utf8');
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw invalid('page_token must be the next_page_token of an earlier page of this list');
  return Number(text);
}
