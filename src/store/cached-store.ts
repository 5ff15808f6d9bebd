import type {
  AccessKey,
  AccessToken,
  NewAccessToken,
  TesTaskQuery,
  AuditEntry,
  AuditQuery,
  AuditRecord,
  Account,
  AppliedChanges,
  DataProvenance,
  HeldTaskFlags,
  WorkEvents,
  Job,
  FileHash,
  JobPatch,
  JobStatus,
  Json,
  NewJob,
  NewTask,
  ReusingJob,
  NewVersion,
  StateChanges,
  Project,
  Store,
  StoreCapabilities,
  Task,
  TaskEvent,
  TaskPage,
  TaskRange,
  TaskPatch,
  TaskStatus,
  Tool,
  ToolUpdate,
  WorkflowUpdate,
  Workflow,
} from './store.js';
import type { WdlStore } from './wdl.js';

/**
 * A read cache in front of a store for what every request reads (access keys, projects, tool
 * and workflow versions). Any write through this store clears it; writes by other processes are
 * noticed through `externalVersion`, a cheap counter that moves on every commit made elsewhere
 * (SQLite's `PRAGMA data_version`; on PostgreSQL the cache generation that writers bump and a
 * watcher follows, see postgres.ts). It is consulted at most every `checkIntervalMs`.
 */
export class CachedStore implements Store {
  private generation = 0;
  private seenExternal: number | string | undefined;
  private checkedAt = 0;
  private readonly entries = new Map<string, Promise<unknown>>();
  /** Values of entries whose read has completed, for callers that cannot wait (see peek). */
  private readonly settled = new Map<string, unknown>();

  constructor(
    private readonly inner: Store,
    private readonly externalVersion: () => number | string,
    /** How often, at most, to ask the backend for external changes (ms). */
    private readonly checkIntervalMs = 25,
    private readonly maxEntries = 20_000,
  ) {}

  get capabilities(): StoreCapabilities {
    return this.inner.capabilities;
  }

  get events(): WorkEvents {
    return this.inner.events;
  }

  /** WDL documents are read by few requests: not cached. */
  get wdl(): WdlStore {
    return this.inner.wdl;
  }

  private invalidate(): void {
    this.generation++;
    this.entries.clear();
    this.settled.clear();
  }

  /** Notice writes made by other processes. */
  private checkExternal(): void {
    // Asking the database costs about as much as a small query, so it is asked at most every
    // checkIntervalMs: a change made by another process is seen within that time.
    const now = Date.now();
    if (now - this.checkedAt >= this.checkIntervalMs) {
      this.checkedAt = now;
      const external = this.externalVersion();
      if (external !== this.seenExternal) {
        this.seenExternal = external;
        this.invalidate();
      }
    }
  }

  /**
   * Read through the cache. The promise itself is kept, so a hit costs no allocation and
   * concurrent misses share one query; a failed read or one that raced a write is not kept.
   */
  private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    this.checkExternal();
    const hit = this.entries.get(key) as Promise<T> | undefined;
    if (hit) return hit;
    const generation = this.generation;
    const pending = load();
    if (this.entries.size >= this.maxEntries) {
      this.entries.clear();
      this.settled.clear();
    }
    this.entries.set(key, pending);
    pending.then(
      (value) => {
        if (generation !== this.generation) {
          if (this.entries.get(key) === pending) this.entries.delete(key);
        } else if (this.entries.get(key) === pending) this.settled.set(key, value);
      },
      () => {
        if (this.entries.get(key) === pending) this.entries.delete(key);
      },
    );
    return pending;
  }

  private async write<T>(action: Promise<T>): Promise<T> {
    try {
      return await action;
    } finally {
      this.invalidate();
    }
  }

  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    // Inside a transaction every read goes to the database: the cache may not see uncommitted rows.
    return this.write(this.inner.transaction(fn));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  // ---- cached reads -------------------------------------------------------------------------

  getAccount(name: string): Promise<Account | undefined> {
    return this.cached(`account:${name}`, () => this.inner.getAccount(name));
  }
  getProject(accountName: string, projectName: string): Promise<Project | undefined> {
    return this.cached(`project:${accountName}/${projectName}`, () => this.inner.getProject(accountName, projectName));
  }
  getAccessKey(id: string): Promise<AccessKey | undefined> {
    return this.cached(`key:${id}`, () => this.inner.getAccessKey(id));
  }

  cacheGeneration(): number {
    this.checkExternal();
    return this.generation;
  }

  /** The access key if its read is cached and complete: null when known not to exist, undefined when not known. */
  peekAccessKey(id: string): AccessKey | null | undefined {
    this.checkExternal();
    const key = `key:${id}`;
    if (!this.settled.has(key)) return undefined;
    return (this.settled.get(key) as AccessKey | undefined) ?? null;
  }
  /** Tokens are cached as keys are: a revocation is seen when the cache notices the write (docs/ga4gh.md). */
  getAccessToken(id: string): Promise<AccessToken | undefined> {
    return this.cached(`token:${id}`, () => this.inner.getAccessToken(id));
  }
  peekAccessToken(id: string): AccessToken | null | undefined {
    this.checkExternal();
    const key = `token:${id}`;
    if (!this.settled.has(key)) return undefined;
    return (this.settled.get(key) as AccessToken | undefined) ?? null;
  }
  getTool(projectId: string, name: string, version: number): Promise<Tool | undefined> {
    return this.cached(`tool:${projectId}/${name}/${version}`, () => this.inner.getTool(projectId, name, version));
  }
  getToolById(id: string): Promise<Tool | undefined> {
    return this.cached(`toolid:${id}`, () => this.inner.getToolById(id));
  }
  getToolVersions(projectId: string, name: string): Promise<Tool[]> {
    return this.cached(`tools:${projectId}/${name}`, () => this.inner.getToolVersions(projectId, name));
  }
  listTools(projectId: string): Promise<Tool[]> {
    return this.cached(`toollist:${projectId}`, () => this.inner.listTools(projectId));
  }
  workflowsUsingTool(toolId: string): Promise<string[]> {
    return this.cached(`pins:${toolId}`, () => this.inner.workflowsUsingTool(toolId));
  }
  getWorkflow(projectId: string, name: string, version: number): Promise<Workflow | undefined> {
    return this.cached(`wf:${projectId}/${name}/${version}`, () => this.inner.getWorkflow(projectId, name, version));
  }
  getWorkflowById(id: string): Promise<Workflow | undefined> {
    return this.cached(`wfid:${id}`, () => this.inner.getWorkflowById(id));
  }
  getWorkflowVersions(projectId: string, name: string): Promise<Workflow[]> {
    return this.cached(`wfs:${projectId}/${name}`, () => this.inner.getWorkflowVersions(projectId, name));
  }
  listWorkflows(projectId: string): Promise<Workflow[]> {
    return this.cached(`wflist:${projectId}`, () => this.inner.listWorkflows(projectId));
  }

  // ---- uncached reads (operator commands) ----------------------------------------------------

  listAccounts(): Promise<Account[]> {
    return this.inner.listAccounts();
  }
  listProjects(accountId: string): Promise<Project[]> {
    return this.inner.listProjects(accountId);
  }
  listAccessKeys(accountId: string): Promise<AccessKey[]> {
    return this.inner.listAccessKeys(accountId);
  }
  listAccessTokens(accountId: string): Promise<AccessToken[]> {
    return this.inner.listAccessTokens(accountId);
  }

  // ---- writes ---------------------------------------------------------------------------------

  createAccount(name: string): Promise<Account> {
    return this.write(this.inner.createAccount(name));
  }
  createProject(accountId: string, name: string, audit?: AuditEntry): Promise<Project> {
    return this.write(this.inner.createProject(accountId, name, audit));
  }
  createAccessKey(key: { id: string; secret: string; accountId: string; userName: string }, audit?: AuditEntry): Promise<AccessKey> {
    return this.write(this.inner.createAccessKey(key, audit));
  }
  revokeAccessKey(id: string, audit?: AuditEntry): Promise<boolean> {
    return this.write(this.inner.revokeAccessKey(id, audit));
  }
  createAccessToken(token: NewAccessToken, audit?: AuditEntry): Promise<AccessToken> {
    return this.write(this.inner.createAccessToken(token, audit));
  }
  revokeAccessToken(id: string, audit?: AuditEntry): Promise<boolean> {
    return this.write(this.inner.revokeAccessToken(id, audit));
  }
  createTool(input: NewVersion, audit?: AuditEntry): Promise<Tool> {
    return this.write(this.inner.createTool(input, audit));
  }
  putTool(id: string, update: ToolUpdate, options?: { refuseIfPinned?: boolean }, audit?: AuditEntry): Promise<void> {
    return this.write(this.inner.putTool(id, update, options, audit));
  }
  deleteTool(id: string, audit?: AuditEntry): Promise<void> {
    return this.write(this.inner.deleteTool(id, audit));
  }
  createWorkflow(input: NewVersion, audit?: AuditEntry): Promise<Workflow> {
    return this.write(this.inner.createWorkflow(input, audit));
  }
  putWorkflow(id: string, update: WorkflowUpdate, audit?: AuditEntry): Promise<void> {
    return this.write(this.inner.putWorkflow(id, update, audit));
  }
  setRunTemplate(id: string, template: Json, audit?: AuditEntry): Promise<void> {
    return this.write(this.inner.setRunTemplate(id, template, audit));
  }
  deleteWorkflow(id: string, audit?: AuditEntry): Promise<void> {
    return this.write(this.inner.deleteWorkflow(id, audit));
  }

  // ---- tasks, jobs and settings: not cached (the engine writes them all the time) ---------------

  createTask(task: NewTask, jobs: NewJob[], audit?: AuditEntry): Promise<void> {
    return this.inner.createTask(task, jobs, audit);
  }
  getTask(id: string): Promise<Task | undefined> {
    return this.inner.getTask(id);
  }
  listTesTasks(projectId: string, query: TesTaskQuery): Promise<{ tasks: Task[]; more: boolean }> {
    return this.inner.listTesTasks(projectId, query);
  }
  listTasks(projectId: string, range: TaskRange): Promise<TaskPage> {
    return this.inner.listTasks(projectId, range);
  }
  updateTask(id: string, patch: TaskPatch, expect?: readonly TaskStatus[]): Promise<boolean> {
    return this.inner.updateTask(id, patch, expect);
  }
  deleteTask(id: string, owner?: string): Promise<boolean> {
    return this.inner.deleteTask(id, owner);
  }
  listJobs(taskId: string): Promise<Job[]> {
    return this.inner.listJobs(taskId);
  }
  jobStatusCounts(taskIds: string[]): Promise<Map<string, Partial<Record<JobStatus, number>>>> {
    return this.inner.jobStatusCounts(taskIds);
  }
  getJob(id: string): Promise<Job | undefined> {
    return this.inner.getJob(id);
  }

  jobsReusing(taskId: string): Promise<ReusingJob[]> {
    return this.inner.jobsReusing(taskId);
  }
  updateJob(id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean> {
    return this.inner.updateJob(id, patch, expect);
  }
  applyChanges(changes: StateChanges): Promise<AppliedChanges> {
    return this.inner.applyChanges(changes);
  }
  claimTasks(owner: string, limit: number, ttlSeconds: number): Promise<Task[]> {
    return this.inner.claimTasks(owner, limit, ttlSeconds);
  }
  renewLeases(owner: string, ttlSeconds: number): Promise<string[]> {
    return this.inner.renewLeases(owner, ttlSeconds);
  }
  releaseTasks(owner: string, taskIds: string[]): Promise<void> {
    return this.inner.releaseTasks(owner, taskIds);
  }
  requestedTasks(owner: string): Promise<HeldTaskFlags[]> {
    return this.inner.requestedTasks(owner);
  }
  lockTask(id: string): Promise<Task | undefined> {
    return this.inner.lockTask(id);
  }
  leaseHolders(): Promise<string[]> {
    return this.inner.leaseHolders();
  }
  expireLeases(owner: string): Promise<void> {
    return this.inner.expireLeases(owner);
  }
  taskEvents(taskId: string): Promise<TaskEvent[]> {
    return this.inner.taskEvents(taskId);
  }
  stateCounts(): ReturnType<Store['stateCounts']> {
    return this.inner.stateCounts();
  }
  // The call cache's rows change with every job: not cached here.
  findCachedJobs(accountName: string, cacheKey: string, limit: number): Promise<Job[]> {
    return this.inner.findCachedJobs(accountName, cacheKey, limit);
  }

  findCachedJobsByKeys(accountName: string, cacheKeys: readonly string[], limitPerKey: number, options?: { newestTaskWhole?: boolean }): Promise<Job[]> {
    return this.inner.findCachedJobsByKeys(accountName, cacheKeys, limitPerKey, options);
  }
  keyedJobsOfTool(accountName: string, toolName: string, limit: number): Promise<Job[]> {
    return this.inner.keyedJobsOfTool(accountName, toolName, limit);
  }
  getContentHash(accountName: string, path: string): Promise<FileHash | undefined> {
    return this.inner.getContentHash(accountName, path);
  }
  putContentHash(accountName: string, path: string, hash: FileHash): Promise<void> {
    return this.inner.putContentHash(accountName, path, hash);
  }
  // Written with every store step's end: not cached.
  getProvenance(account: string, paths: string[]): Promise<Array<DataProvenance & { taskStatus: TaskStatus | null }>> {
    return this.inner.getProvenance(account, paths);
  }
  // The audit log is not cached and holds nothing the cache does: no invalidation.
  recordAudit(entry: AuditEntry): Promise<void> {
    return this.inner.recordAudit(entry);
  }
  listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    return this.inner.listAudit(query);
  }

  getSetting(key: string): Promise<string | undefined> {
    return this.inner.getSetting(key);
  }
  initSetting(key: string, value: string): Promise<string> {
    return this.inner.initSetting(key, value);
  }
}
