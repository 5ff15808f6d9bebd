import { logFailure, notFoundAs } from './errors.js';
import { sleep, TaskWaitTimeout, type ClientOptions, type DataBody, type WaitOptions } from './client-options.js';
import { dataRoute, parseDataItemName, parseDataPrefix, type DataRef } from './data-names.js';
import { segment, Transport, type TransportOptions } from './transport.js';
import { fetchTrusting, readCaFile, type Fetch } from './trusted-fetch.js';
import {
  isTerminalTask,
  type ActivatedTask,
  type ActivateWorkflowRequest,
  type CallerIdentity,
  type CreateToolRequest,
  type CreateWorkflowRequest,
  type CwlDocument,
  type CwlImported,
  type CwlImportRequest,
  type CwlRun,
  type CwlRunRequest,
  type CwlRunStarted,
  type WdlRun,
  type WdlRunRequest,
  type DataList,
  type DataPutResult,
  type Job,
  type JobCacheExplanation,
  type JobInfo,
  type ListTasksQuery,
  type PutToolRequest,
  type PutWorkflowRequest,
  type RunParameters,
  type Task,
  type TaskEvent,
  type TaskList,
  type TaskOutputs,
  type ToolAsRead,
  type ToolDefinition,
  type ToolDetails,
  type ToolList,
  type ToolParameterTemplate,
  type WorkflowAsRead,
  type WorkflowConfigs,
  type WorkflowGraph,
  type WorkflowList,
} from './types.js';

// The SDK's entry points import these from here (index.ts) as they did when they lived in this file.
export { notFoundAs } from './errors.js';
export { TaskWaitTimeout, type ClientOptions, type DataBody, type WaitOptions } from './client-options.js';

/**
 * A typed client of the gdflow / GeneDock API: one method per operation of INTERFACE.md and of
 * the task, job and data routes (docs/wire.md §2). Requests are signed with the same signing module
 * the server verifies with; failures surface as GdApiError (status, error_code, both messages,
 * request id) or GdConnectionError (server unreachable after the retries).
 */
export class Client {
  readonly transport: Transport;
  readonly project: string;
  private account: string | undefined;
  private identity: Promise<CallerIdentity> | undefined;
  /** The global fetch, or one that trusts the configured CA. */
  private readonly fetch: Fetch;

  constructor(private readonly options: ClientOptions) {
    const ca = [...(options.ca === undefined ? [] : [options.ca].flat()), ...(options.caFile === undefined ? [] : [readCaFile(options.caFile)])];
    this.fetch = ca.length > 0 ? fetchTrusting(ca) : fetch;
    const transportOptions: TransportOptions = {
      endpoint: options.endpoint,
      credentials: { accessKeyId: options.accessKeyId, accessKeySecret: options.accessKeySecret },
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
      ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
      fetch: this.fetch,
    };
    this.transport = new Transport(transportOptions);
    this.account = options.account;
    this.project = options.project ?? 'default';
  }

  // ---------------------------------------------------------------- identity

  /** GET /miscellaneous/credentials/: the account and user the key belongs to. */
  whoami(): Promise<CallerIdentity> {
    this.identity ??= this.transport.json<CallerIdentity>('GET', '/miscellaneous/credentials/');
    // A failed look-up is not cached: the next call asks again.
    this.identity.catch(() => (this.identity = undefined));
    return this.identity;
  }

  /** The account addressed: the configured one, or the key's own. */
  async accountName(): Promise<string> {
    this.account ??= (await this.whoami()).account_name;
    return this.account;
  }

  /**
   * A client with the same key that addresses another account's project: the public account's (`public`, whose
   * tools and workflows every account may read and run without the public account's key), or another project of the
   * caller's own account.
   */
  inProject(account: string, project = 'default'): Client {
    return new Client({ ...this.options, account, project });
  }

  private async projectPath(rest: string): Promise<string> {
    return `/accounts/${segment(await this.accountName())}/projects/${segment(this.project)}/${rest}`;
  }

  // ---------------------------------------------------------------- tools (INTERFACE.md 4.1–4.7)

  /** 4.1 CreateTool: a new, empty (unchecked) version. */
  async createTool(request: CreateToolRequest): Promise<void> {
    await this.transport.send('POST', await this.projectPath('tools/'), { json: request });
  }

  /** 4.2 PutTool: the definition of one version. */
  async putTool(toolName: string, request: PutToolRequest): Promise<void> {
    await this.transport.send('PUT', await this.projectPath(`tools/${segment(toolName)}/`), { json: request });
  }

  /** 4.3 DeleteTool. */
  async deleteTool(toolName: string, toolVersion: number): Promise<void> {
    await this.transport.send('DELETE', await this.projectPath(`tools/${segment(toolName)}/`), { query: { tool_version: toolVersion } });
  }

  /** 4.4 ListTool. The server answers 404 ToolNotExists for an empty project. */
  async listTools(): Promise<ToolList> {
    return this.transport.json<ToolList>('GET', await this.projectPath('tools/'));
  }

  /** 4.5 GetTool: one version, or every version when none is given. */
  async getTool(toolName: string, toolVersion?: number): Promise<{ tools: ToolAsRead[] }> {
    return this.transport.json('GET', await this.projectPath(`tools/${segment(toolName)}/`), { query: { tool_version: toolVersion } });
  }

  /** 4.6 GetToolParameterTemplate: one version, or the latest checked one when none is given. */
  async getToolParameterTemplate(toolName: string, toolVersion?: number): Promise<{ parameter: ToolParameterTemplate[] }> {
    return this.transport.json('GET', await this.projectPath(`toolparameters/${segment(toolName)}/`), { query: { tool_version: toolVersion } });
  }

  /** 4.7 GetToolDetails: one version, or the latest checked one when none is given. */
  async getToolDetails(toolName: string, toolVersion?: number): Promise<ToolDetails[]> {
    return this.transport.json('GET', await this.projectPath(`tooldetails/${segment(toolName)}/`), { query: { tool_version: toolVersion } });
  }

  /** A tool version as a CWL v1.2 CommandLineTool (the latest checked version when none is given; docs/cwl.md). */
  async exportToolCwl(toolName: string, toolVersion?: number): Promise<CwlDocument> {
    return this.transport.json('GET', await this.projectPath(`tools/${segment(toolName)}/cwl/`), { query: { tool_version: toolVersion } });
  }

  /** The version the next CreateTool of this name makes (1 for a new name). */
  async nextToolVersion(toolName: string): Promise<number> {
    const tools = await this.getTool(toolName).then((r) => r.tools, notFoundAs<ToolAsRead[]>([]));
    return Math.max(0, ...tools.map((t) => t.configs.version)) + 1;
  }

  /**
   * CreateTool then PutTool: add a version holding `definition` and return it. The version is
   * fixed in the create (so a concurrent creator cannot make us fill its version), and removed
   * again when the definition is refused, so that no empty version is left behind.
   */
  async registerTool(definition: ToolDefinition, options: { name?: string; description?: string } = {}): Promise<{ tool_name: string; tool_version: number }> {
    const name = options.name ?? definition.name;
    if (!name) throw new TypeError('the tool definition has no name');
    const description = options.description ?? (typeof definition.description === 'string' ? definition.description : '');
    const version = await this.nextToolVersion(name);
    await this.createTool({ tool_name: name, description, tool_version: version });
    try {
      await this.putTool(name, { tool_version: version, description, configs: { ...definition, name } });
    } catch (error) {
      await this.deleteTool(name, version).catch(() => undefined);
      throw error;
    }
    return { tool_name: name, tool_version: version };
  }

  // ---------------------------------------------------------------- workflows (INTERFACE.md 4.8–4.14)

  /** 4.8 CreateWorkflow. */
  async createWorkflow(request: CreateWorkflowRequest): Promise<void> {
    await this.transport.send('POST', await this.projectPath('workflows/'), { json: request });
  }

  /** 4.9 PutWorkflow. */
  async putWorkflow(workflowName: string, request: PutWorkflowRequest): Promise<void> {
    await this.transport.send('PUT', await this.projectPath(`workflows/${segment(workflowName)}/`), { json: request });
  }

  /** 4.10 GetWorkflow: one version, or every version when none is given. */
  async getWorkflow(workflowName: string, workflowVersion?: number): Promise<{ workflows: WorkflowAsRead[] }> {
    return this.transport.json('GET', await this.projectPath(`workflows/${segment(workflowName)}/`), { query: { workflow_version: workflowVersion } });
  }

  /** 4.11 DeleteWorkflow. */
  async deleteWorkflow(workflowName: string, workflowVersion: number): Promise<void> {
    await this.transport.send('DELETE', await this.projectPath(`workflows/${segment(workflowName)}/`), { query: { workflow_version: workflowVersion } });
  }

  /** 4.12 ListWorkflow. The server answers 404 WorkflowNotExists for an empty project. */
  async listWorkflows(): Promise<WorkflowList> {
    return this.transport.json('GET', await this.projectPath('workflows/'));
  }

  /** 4.13 GetExecutableWorkflow: the run-parameter template (latest checked version when none is given). */
  async getExecutableWorkflow(workflowName: string, workflowVersion?: number): Promise<{ parameter: RunParameters }> {
    return this.transport.json('GET', await this.projectPath(`executable-workflows/${segment(workflowName)}/`), {
      query: { workflow_version: workflowVersion },
    });
  }

  /** 4.14 ListExecutableWorkflow. */
  async listExecutableWorkflows(): Promise<WorkflowList> {
    return this.transport.json('GET', await this.projectPath('executable-workflows/'));
  }

  /** docs/wire.md §2 "set run template": save defaults that later templates return. */
  async setRunTemplate(workflowName: string, workflowVersion: number, parameters: RunParameters): Promise<void> {
    await this.transport.send('PUT', await this.projectPath(`executable-workflows/${segment(workflowName)}/`), {
      json: { workflow_version: workflowVersion, parameters },
    });
  }

  /** Nodes and links of a validated version (latest checked when none is given). */
  async getWorkflowGraph(workflowName: string, workflowVersion?: number): Promise<WorkflowGraph> {
    return this.transport.json('GET', await this.projectPath(`workflows/${segment(workflowName)}/graph/`), { query: { workflow_version: workflowVersion } });
  }

  /** A workflow version as a CWL v1.2 Workflow with its tools (the latest checked version when none is given; docs/cwl.md). */
  async exportWorkflowCwl(workflowName: string, workflowVersion?: number): Promise<CwlDocument> {
    return this.transport.json('GET', await this.projectPath(`workflows/${segment(workflowName)}/cwl/`), { query: { workflow_version: workflowVersion } });
  }

  /** The version the next CreateWorkflow of this name makes (1 for a new name). */
  async nextWorkflowVersion(workflowName: string): Promise<number> {
    // GetWorkflow answers an unknown name with a 400 like any other bad request (INTERFACE.md
    // 4.10), so the versions are read from ListWorkflow, whose only 404 is an empty project.
    const list = await this.listWorkflows().catch(notFoundAs<WorkflowList>({ items: [], workflow_url: '' }));
    const versions = list.items
      .flat()
      .filter((w) => w.workflow_name === workflowName)
      .map((w) => w.workflow_version);
    return Math.max(0, ...versions) + 1;
  }

  /** CreateWorkflow then PutWorkflow, as registerTool. */
  async registerWorkflow(
    workflowName: string,
    configs: WorkflowConfigs,
    options: { description?: string } = {},
  ): Promise<{ workflow_name: string; workflow_version: number }> {
    const description = options.description ?? '';
    const version = await this.nextWorkflowVersion(workflowName);
    await this.createWorkflow({ workflow_name: workflowName, description, workflow_version: version });
    try {
      await this.putWorkflow(workflowName, { workflow_version: version, description, configs });
    } catch (error) {
      await this.deleteWorkflow(workflowName, version).catch(() => undefined);
      throw error;
    }
    return { workflow_name: workflowName, workflow_version: version };
  }

  // ---------------------------------------------------------------- tasks and jobs (INTERFACE.md 4.15, docs/wire.md §2)

  /**
   * 4.15 ActivateWorkflow: start a task. Not retried once the request may have reached the
   * server (a blind retry could start the task twice); only refused connections are retried.
   */
  async activateWorkflow(request: ActivateWorkflowRequest): Promise<ActivatedTask> {
    return this.transport.json('POST', await this.projectPath('tasks/'), { json: request, retryOn: 'unsent' });
  }

  /** Tasks of the project, newest first. */
  async listTasks(query: ListTasksQuery = {}): Promise<TaskList> {
    return this.transport.json('GET', await this.projectPath('tasks/'), { query: { ...query } });
  }

  async getTask(taskId: string): Promise<Task> {
    return this.transport.json('GET', await this.projectPath(`tasks/${segment(taskId)}/`));
  }

  /** Stop a task (running jobs are killed); stopping an ended task is a harmless no-op. */
  async stopTask(taskId: string): Promise<{ task_id: string; status: string }> {
    return this.transport.json('PUT', await this.projectPath(`tasks/${segment(taskId)}/`));
  }

  async deleteTask(taskId: string): Promise<void> {
    await this.transport.send('DELETE', await this.projectPath(`tasks/${segment(taskId)}/`));
  }

  async listJobs(taskId: string): Promise<{ jobs: Job[] }> {
    return this.transport.json('GET', await this.projectPath(`tasks/${segment(taskId)}/jobs/`));
  }

  /** A job with its rendered command and `Log_downloadURL`. */
  async getJob(taskId: string, jobId: string): Promise<JobInfo> {
    return this.transport.json('GET', await this.projectPath(`tasks/${segment(taskId)}/jobs/${segment(jobId)}/`));
  }

  async getJobCommand(taskId: string, jobId: string): Promise<{ cmd: string }> {
    return this.transport.json('GET', await this.projectPath(`tasks/${segment(taskId)}/cmd/${segment(jobId)}/`));
  }

  /** Why a job was or was not a call-cache hit: the nearest earlier job of its tool and what differs (docs/tasks.md). */
  async explainJob(taskId: string, jobId: string): Promise<JobCacheExplanation> {
    return this.transport.json('GET', await this.projectPath(`tasks/${segment(taskId)}/jobs/${segment(jobId)}/explain/`));
  }

  /**
   * Run a task again with it as the reference task: same workflow version, parameters and outputs; its succeeded
   * jobs whose keys still match are reused. Not retried once the request may have reached the server.
   */
  async rerunTask(taskId: string): Promise<ActivatedTask> {
    return this.transport.json('POST', await this.projectPath(`tasks/${segment(taskId)}/rerun/`), { retryOn: 'unsent' });
  }

  /** Every persisted state transition of the task and its jobs. */
  async getTaskEvents(taskId: string): Promise<{ events: TaskEvent[] }> {
    return this.transport.json('GET', await this.projectPath(`tasks/${segment(taskId)}/events/`));
  }

  /**
   * What the task stored, or is to store, in the data store: each item's name, state (`stored`, `pending`,
   * `not_stored`, `replaced`, `missing`), size, the node and job that wrote it and its store step; `partial` when the
   * task failed or was stopped.
   */
  async getTaskOutputs(taskId: string): Promise<TaskOutputs> {
    return this.transport.json('GET', await this.projectPath(`tasks/${segment(taskId)}/outputs/`));
  }

  /**
   * A job's log text (stdout then stderr, or one of them), read from its `Log_downloadURL` with a
   * plain GET as other clients do; empty while the job has no log.
   */
  async getJobLog(taskId: string, jobId: string, stream?: 'stdout' | 'stderr'): Promise<string> {
    const info = await this.getJob(taskId, jobId);
    if (!info.Log_downloadURL) return '';
    const url = new URL(info.Log_downloadURL);
    if (stream) url.searchParams.set('stream', stream);
    const response = await this.fetch(url);
    if (!response.ok) throw await logFailure(response);
    return response.text();
  }

  /**
   * A job's log from byte `offset` on, by its `Log_downloadURL` (from getJob) with a `Range` request: what a running
   * job wrote since an earlier read (empty when nothing yet), and the log's size now. A size below the offset means
   * the log started again (a job's next attempt rewrites it). A server that ignores ranges answers the whole log,
   * of which the part past `offset` is taken. An expired link is a 403: ask getJob for a fresh one.
   */
  async readJobLog(logUrl: string, options: { offset?: number; stream?: 'stdout' | 'stderr' } = {}): Promise<{ bytes: Buffer; size: number }> {
    const url = new URL(logUrl);
    if (options.stream) url.searchParams.set('stream', options.stream);
    const offset = options.offset ?? 0;
    const response = await this.fetch(url, { signal: AbortSignal.timeout(60_000), ...(offset > 0 ? { headers: { Range: `bytes=${offset}-` } } : {}) });
    // `bytes 0-99/1234` or `bytes */1234`: the size is after the slash.
    const rangeSize = () => Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? NaN);
    if (response.status === 416) {
      await response.arrayBuffer();
      return { bytes: Buffer.alloc(0), size: rangeSize() };
    }
    if (!response.ok) throw await logFailure(response);
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status === 206) return { bytes: body, size: rangeSize() };
    return { bytes: body.subarray(Math.min(offset, body.length)), size: body.length };
  }

  /** Poll a task until it ends (succeeded, failed or stopped) and return its last state; TaskWaitTimeout after timeoutMs. */
  async waitForTask(taskId: string, options: WaitOptions = {}): Promise<Task> {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    for (;;) {
      const task = await this.getTask(taskId);
      const jobs = options.withJobs ? (await this.listJobs(taskId)).jobs : undefined;
      options.onUpdate?.(task, jobs);
      if (isTerminalTask(task.status)) return task;
      if (Date.now() > deadline) throw new TaskWaitTimeout(task, options.timeoutMs!);
      await sleep(options.intervalMs ?? 1000, options.signal);
    }
  }

  // ---------------------------------------------------------------- CWL runs (docs/cwl.md)

  /**
   * Start a CWL run: a task like any other. Not retried once the request may have reached the server (a blind retry
   * could start it twice).
   */
  async runCwl(request: CwlRunRequest): Promise<CwlRunStarted> {
    return this.transport.json('POST', await this.projectPath('cwl/runs/'), { json: request, retryOn: 'unsent' });
  }

  /**
   * Import a packed CWL document: its CommandLineTools and ExpressionTools as tool versions, its Workflows as workflow
   * versions, each keeping its CWL document. Not retried once the request may have reached the server.
   */
  async importCwl(request: CwlImportRequest): Promise<CwlImported> {
    return this.transport.json('POST', await this.projectPath('cwl/import/'), { json: request, retryOn: 'unsent' });
  }

  /** A CWL run: its task's status, and its output object once it succeeded. */
  async getCwlRun(taskId: string): Promise<CwlRun> {
    return this.transport.json('GET', await this.projectPath(`cwl/runs/${segment(taskId)}/`));
  }

  // ---------------------------------------------------------------- WDL runs (docs/wdl.md)

  /** Start a WDL run of a document as it is. Not retried once the request may have reached the server. */
  async runWdl(request: WdlRunRequest): Promise<CwlRunStarted> {
    return this.transport.json('POST', await this.projectPath('wdl/runs/'), { json: request, retryOn: 'unsent' });
  }

  /** A WDL run: its task's status, and its outputs once it succeeded. */
  async getWdlRun(taskId: string): Promise<WdlRun> {
    return this.transport.json('GET', await this.projectPath(`wdl/runs/${segment(taskId)}/`));
  }

  // ---------------------------------------------------------------- data (docs/data.md)

  /** `<account>:/<path>` or `/<path>` (own account) → account and path, checked as the server does. */
  async dataRef(name: string): Promise<DataRef> {
    return parseDataItemName(name, await this.accountName());
  }

  /**
   * Upload bytes as a data item (atomically replaced). With `contentMd5` (base64) the server
   * refuses a body that does not match; buffers get one automatically. Streams are sent once,
   * never retried.
   */
  async putData(name: string, body: DataBody, options: { contentMd5?: string } = {}): Promise<DataPutResult> {
    const route = dataRoute(await this.dataRef(name));
    return this.transport.json('PUT', route, {
      body: body instanceof Uint8Array ? body : (body as NodeJS.ReadableStream),
      contentType: 'application/octet-stream',
      ...(options.contentMd5 ? { headers: { 'Content-MD5': options.contentMd5 } } : {}),
    });
  }

  /** Download: the raw response, whose body streams the bytes (`content-length` is set). */
  async getData(name: string): Promise<Response> {
    return this.transport.send('GET', dataRoute(await this.dataRef(name)));
  }

  /** Download into memory. */
  async readData(name: string): Promise<Buffer> {
    return Buffer.from(await (await this.getData(name)).arrayBuffer());
  }

  /** Items below a prefix such as `/reads/` or `public:/demo/`, recursively, sorted by name (at most `limit`, server default 10 000). */
  async listData(prefix = '/', options: { limit?: number } = {}): Promise<DataList> {
    const ref = parseDataPrefix(prefix, await this.accountName());
    return this.transport.json('GET', `/accounts/${segment(ref.account)}/data/`, { query: { prefix: ref.path, limit: options.limit } });
  }

  async deleteData(name: string): Promise<void> {
    await this.transport.send('DELETE', dataRoute(await this.dataRef(name)));
  }
}
