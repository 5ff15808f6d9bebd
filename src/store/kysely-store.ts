import { sql, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import { newId } from '../ids.js';
import { dbNow } from './db-clock.js';
import { LocalWorkEvents } from './local-events.js';
import type { Database, JobsTable, TasksTable, ToolsTable, WorkflowsTable } from './schema.js';
import { isForeignKeyViolation, isTransientConflict, isUniqueViolation } from './sql-errors.js';
import {
  AlreadyExists,
  InUse,
  type AppliedChanges,
  type HeldTaskFlags,
  type WorkEvents,
  VersionConflict,
  type AccessKey,
  type Account,
  type DefinitionStatus,
  type Job,
  type JobPatch,
  type JobStatus,
  type Json,
  type NewJob,
  type NewTask,
  type Task,
  type TaskEvent,
  type TaskPatch,
  type TaskRange,
  type TaskStatus,
  type NewVersion,
  type StateChanges,
  type Project,
  type Store,
  type StoreCapabilities,
  type Tool,
  type Visibility,
  type Workflow,
} from './store.js';

const now = (): number => Date.now() / 1000;

const parseJson = (text: string | null): Json | null => (text === null ? null : (JSON.parse(text) as Json));

type Owner = { account_name: string; project_name: string };

function toTool(row: Selectable<ToolsTable> & Owner): Tool {
  return {
    id: row.id,
    projectId: row.project_id,
    accountName: row.account_name,
    projectName: row.project_name,
    name: row.name,
    version: row.version,
    description: row.description,
    status: row.status as DefinitionStatus,
    visibility: row.visibility as Visibility,
    category: row.category,
    configs: parseJson(row.configs),
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

function toWorkflow(row: Selectable<WorkflowsTable> & Owner): Workflow {
  return {
    id: row.id,
    projectId: row.project_id,
    accountName: row.account_name,
    projectName: row.project_name,
    name: row.name,
    version: row.version,
    description: row.description,
    status: row.status as DefinitionStatus,
    visibility: row.visibility as Visibility,
    configs: parseJson(row.configs),
    runTemplate: parseJson(row.run_template),
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

function toTask(row: Selectable<TasksTable> & Owner & { held_by: string | null }): Task {
  return {
    id: row.id,
    projectId: row.project_id,
    accountName: row.account_name,
    projectName: row.project_name,
    name: row.name,
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    workflowVersion: row.workflow_version,
    userName: row.user_name,
    status: row.status as TaskStatus,
    reason: row.reason,
    parameters: parseJson(row.parameters) ?? {},
    plan: parseJson(row.plan) ?? {},
    scheduleAt: row.schedule_at,
    stopRequested: row.stop_requested !== 0,
    deleteRequested: row.delete_requested !== 0,
    heldBy: row.held_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    modifiedAt: row.modified_at,
  };
}

function toJob(row: Selectable<JobsTable>): Job {
  return {
    id: row.id,
    taskId: row.task_id,
    nodeId: row.node_id,
    name: row.name,
    status: row.status as JobStatus,
    reason: row.reason,
    command: row.command,
    spec: parseJson(row.spec) ?? {},
    attempt: row.attempt,
    exitCode: row.exit_code,
    cpu: row.cpu,
    memMb: row.mem_mb,
    externalId: row.external_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    modifiedAt: row.modified_at,
  };
}

/** Write a task event when a patch changes a task's or job's status. */
async function recordTransition(
  trx: Kysely<Database>,
  change: { taskId: string; jobId: string | null; from: string; patch: { status?: string; reason?: string }; at: number },
): Promise<void> {
  const { taskId, jobId, from, patch, at } = change;
  if (patch.status === undefined || patch.status === from) return;
  await trx.insertInto('task_events').values({ task_id: taskId, job_id: jobId, from_status: from, to_status: patch.status, reason: patch.reason ?? '', at }).execute();
}

/** How many times a version allocation is retried when a concurrent writer took the same number. */
const VERSION_RETRIES = 20;

/** What differs between the backends beyond SQL itself (which the Kysely dialect handles). */
export interface KyselyStoreOptions {
  /**
   * Runs `fn` in a transaction whose commit may return before it is on disk (SQLite: `synchronous=NORMAL` for
   * that commit; PostgreSQL: `synchronous_commit = off`). It survives a crash of the server process, not of the
   * machine. Without it, such transactions are ordinary, durable ones.
   */
  relaxedTransaction?: <T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;
  onClose?: () => Promise<void>;
  /** How workers are woken (default: within this process only). */
  events?: WorkEvents;
}

/** Unfinished task states, written as in the partial index tasks_claimable (migration 0003) so that it is used. */
const ACTIVE_TASK = sql`status in ('scheduled', 'queued', 'running', 'stopping')`;

/**
 * The store over Kysely. The same code serves SQLite and PostgreSQL: everything dialect-specific
 * lives in the Kysely dialect, in `capabilities` and in `options`.
 */
export class KyselyStore implements Store {
  readonly events: WorkEvents;

  constructor(
    private readonly db: Kysely<Database>,
    readonly capabilities: StoreCapabilities,
    private readonly options: KyselyStoreOptions = {},
    private readonly inTransaction = false,
  ) {
    this.events = options.events ?? new LocalWorkEvents();
  }

  async transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn(this);
    const options = { ...this.options, events: this.events };
    return this.retrying((trx) => fn(new KyselyStore(trx, this.capabilities, options, true)), () => false);
  }

  /** The database's clock (leases are measured with it). */
  private get now() {
    return dbNow(this.capabilities.dialect);
  }

  /** Run `fn` in a transaction, again from the start when it loses a race to another writer. */
  private async retrying<T>(fn: (trx: Kysely<Database>) => Promise<T>, isRace: (e: unknown) => boolean, relaxed = false): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        if (this.inTransaction) return await fn(this.db);
        if (relaxed && this.options.relaxedTransaction) return await this.options.relaxedTransaction(this.db, fn);
        return await this.db.transaction().execute((trx: Transaction<Database>) => fn(trx));
      } catch (error) {
        if (this.inTransaction || attempt >= VERSION_RETRIES || !(isRace(error) || isTransientConflict(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
      }
    }
  }

  async close(): Promise<void> {
    await (this.options.onClose ?? (() => this.db.destroy()))();
  }

  // ---- accounts, projects, keys ------------------------------------------------------------

  async createAccount(name: string): Promise<Account> {
    const account: Account = { id: newId(), name, createdAt: now() };
    try {
      await this.db.insertInto('accounts').values({ id: account.id, name, created_at: account.createdAt }).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExists(`account '${name}'`);
      throw error;
    }
    return account;
  }

  async getAccount(name: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
    return row && { id: row.id, name: row.name, createdAt: row.created_at };
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy('name').execute();
    return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at }));
  }

  private projectQuery() {
    return this.db
      .selectFrom('projects')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .select(['projects.id', 'projects.account_id', 'projects.name', 'projects.created_at', 'accounts.name as account_name']);
  }

  private static toProject(row: { id: string; account_id: string; name: string; created_at: number; account_name: string }): Project {
    return { id: row.id, accountId: row.account_id, accountName: row.account_name, name: row.name, createdAt: row.created_at };
  }

  async createProject(accountId: string, name: string): Promise<Project> {
    const id = newId();
    try {
      await this.db.insertInto('projects').values({ id, account_id: accountId, name, created_at: now() }).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExists(`project '${name}'`);
      throw error;
    }
    const row = await this.projectQuery().where('projects.id', '=', id).executeTakeFirstOrThrow();
    return KyselyStore.toProject(row);
  }

  async getProject(accountName: string, projectName: string): Promise<Project | undefined> {
    const row = await this.projectQuery().where('accounts.name', '=', accountName).where('projects.name', '=', projectName).executeTakeFirst();
    return row && KyselyStore.toProject(row);
  }

  async listProjects(accountId: string): Promise<Project[]> {
    const rows = await this.projectQuery().where('projects.account_id', '=', accountId).orderBy('projects.name').execute();
    return rows.map((row) => KyselyStore.toProject(row));
  }

  private keyQuery() {
    return this.db
      .selectFrom('access_keys')
      .innerJoin('accounts', 'accounts.id', 'access_keys.account_id')
      .select([
        'access_keys.id',
        'access_keys.secret',
        'access_keys.account_id',
        'access_keys.user_name',
        'access_keys.status',
        'access_keys.created_at',
        'accounts.name as account_name',
      ]);
  }

  private static toKey(row: {
    id: string;
    secret: string;
    account_id: string;
    user_name: string;
    status: string;
    created_at: number;
    account_name: string;
  }): AccessKey {
    return {
      id: row.id,
      secret: row.secret,
      accountId: row.account_id,
      accountName: row.account_name,
      userName: row.user_name,
      status: row.status === 'active' ? 'active' : 'revoked',
      createdAt: row.created_at,
    };
  }

  async createAccessKey(key: { id: string; secret: string; accountId: string; userName: string }): Promise<AccessKey> {
    await this.db
      .insertInto('access_keys')
      .values({ id: key.id, secret: key.secret, account_id: key.accountId, user_name: key.userName, status: 'active', created_at: now(), revoked_at: null })
      .execute();
    const row = await this.keyQuery().where('access_keys.id', '=', key.id).executeTakeFirstOrThrow();
    return KyselyStore.toKey(row);
  }

  async getAccessKey(id: string): Promise<AccessKey | undefined> {
    const row = await this.keyQuery().where('access_keys.id', '=', id).executeTakeFirst();
    return row && KyselyStore.toKey(row);
  }

  async listAccessKeys(accountId: string): Promise<AccessKey[]> {
    const rows = await this.keyQuery().where('access_keys.account_id', '=', accountId).orderBy('access_keys.created_at').execute();
    return rows.map((row) => KyselyStore.toKey(row));
  }

  async revokeAccessKey(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('access_keys')
      .set({ status: 'revoked', revoked_at: now() })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  // ---- tools --------------------------------------------------------------------------------

  private toolQuery(db: Kysely<Database> = this.db) {
    return db
      .selectFrom('tools')
      .innerJoin('projects', 'projects.id', 'tools.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .selectAll('tools')
      .select(['accounts.name as account_name', 'projects.name as project_name']);
  }

  /**
   * Insert the next version of a tool or workflow name: max(version) + 1, in a transaction that is
   * retried when a concurrent writer took the same number (the unique key refuses the second), so
   * versions stay unique and gap-free.
   */
  private async createVersion(table: 'tools' | 'workflows', input: NewVersion, columns: Record<string, string | null>): Promise<string> {
    return this.retrying(async (trx) => {
      const { max } = await trx
        .selectFrom(table as 'tools')
        .select((eb) => eb.fn.max<number | null>('version').as('max'))
        .where('project_id', '=', input.projectId)
        .where('name', '=', input.name)
        .executeTakeFirstOrThrow();
      const version = (max ?? 0) + 1;
      if (input.expectedVersion !== undefined && input.expectedVersion !== version) throw new VersionConflict(version);
      const id = newId();
      const at = now();
      await trx
        .insertInto(table as 'tools')
        .values({
          id,
          project_id: input.projectId,
          name: input.name,
          version,
          description: input.description,
          status: 'unchecked',
          visibility: input.visibility,
          created_at: at,
          modified_at: at,
          ...(columns as { category: string; configs: null }),
        })
        .execute();
      return id;
    }, isUniqueViolation);
  }

  async createTool(input: NewVersion): Promise<Tool> {
    const id = await this.createVersion('tools', input, { category: '', configs: null });
    return (await this.getToolById(id))!;
  }

  async putTool(id: string, update: { description?: string; configs: Json; category: string; status: DefinitionStatus }): Promise<void> {
    await this.db
      .updateTable('tools')
      .set({
        ...(update.description !== undefined ? { description: update.description } : {}),
        configs: JSON.stringify(update.configs),
        category: update.category,
        status: update.status,
        modified_at: now(),
      })
      .where('id', '=', id)
      .execute();
  }

  async getTool(projectId: string, name: string, version: number): Promise<Tool | undefined> {
    const row = await this.toolQuery().where('tools.project_id', '=', projectId).where('tools.name', '=', name).where('tools.version', '=', version).executeTakeFirst();
    return row && toTool(row);
  }

  async getToolById(id: string): Promise<Tool | undefined> {
    const row = await this.toolQuery().where('tools.id', '=', id).executeTakeFirst();
    return row && toTool(row);
  }

  async getToolVersions(projectId: string, name: string): Promise<Tool[]> {
    const rows = await this.toolQuery().where('tools.project_id', '=', projectId).where('tools.name', '=', name).orderBy('tools.version').execute();
    return rows.map(toTool);
  }

  async listTools(projectId: string): Promise<Tool[]> {
    const rows = await this.toolQuery().where('tools.project_id', '=', projectId).orderBy('tools.name').orderBy('tools.version').execute();
    return rows.map(toTool);
  }

  async deleteTool(id: string): Promise<void> {
    try {
      await this.db.deleteFrom('tools').where('id', '=', id).execute();
    } catch (error) {
      // The foreign key of workflow_tools refuses the delete even when a PutWorkflow pinned the
      // tool between the domain's check and this statement.
      if (isForeignKeyViolation(error)) throw new InUse(await this.workflowsUsingTool(id));
      throw error;
    }
  }

  // ---- workflows ------------------------------------------------------------------------------

  private workflowQuery() {
    return this.db
      .selectFrom('workflows')
      .innerJoin('projects', 'projects.id', 'workflows.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .selectAll('workflows')
      .select(['accounts.name as account_name', 'projects.name as project_name']);
  }

  async createWorkflow(input: NewVersion): Promise<Workflow> {
    const id = await this.createVersion('workflows', input, { configs: null, run_template: null });
    return (await this.getWorkflowById(id))!;
  }

  async putWorkflow(id: string, update: { description?: string; configs: Json; status: DefinitionStatus; toolIds: string[] }): Promise<void> {
    await this.retrying(async (trx) => {
      await trx
        .updateTable('workflows')
        .set({
          ...(update.description !== undefined ? { description: update.description } : {}),
          configs: JSON.stringify(update.configs),
          status: update.status,
          // A new configuration invalidates saved run defaults, which were keyed by its nodes.
          run_template: null,
          modified_at: now(),
        })
        .where('id', '=', id)
        .execute();
      await trx.deleteFrom('workflow_tools').where('workflow_id', '=', id).execute();
      const toolIds = [...new Set(update.toolIds)];
      if (toolIds.length > 0) {
        await trx
          .insertInto('workflow_tools')
          .values(toolIds.map((toolId) => ({ workflow_id: id, tool_id: toolId })))
          .execute();
      }
    }, () => false);
  }

  async setRunTemplate(id: string, template: Json): Promise<void> {
    await this.db.updateTable('workflows').set({ run_template: JSON.stringify(template), modified_at: now() }).where('id', '=', id).execute();
  }

  async getWorkflow(projectId: string, name: string, version: number): Promise<Workflow | undefined> {
    const row = await this.workflowQuery()
      .where('workflows.project_id', '=', projectId)
      .where('workflows.name', '=', name)
      .where('workflows.version', '=', version)
      .executeTakeFirst();
    return row && toWorkflow(row);
  }

  async getWorkflowById(id: string): Promise<Workflow | undefined> {
    const row = await this.workflowQuery().where('workflows.id', '=', id).executeTakeFirst();
    return row && toWorkflow(row);
  }

  async getWorkflowVersions(projectId: string, name: string): Promise<Workflow[]> {
    const rows = await this.workflowQuery().where('workflows.project_id', '=', projectId).where('workflows.name', '=', name).orderBy('workflows.version').execute();
    return rows.map(toWorkflow);
  }

  async listWorkflows(projectId: string): Promise<Workflow[]> {
    const rows = await this.workflowQuery().where('workflows.project_id', '=', projectId).orderBy('workflows.name').orderBy('workflows.version').execute();
    return rows.map(toWorkflow);
  }

  async workflowsUsingTool(toolId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('workflow_tools')
      .innerJoin('workflows', 'workflows.id', 'workflow_tools.workflow_id')
      .innerJoin('projects', 'projects.id', 'workflows.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .select(['accounts.name as account_name', 'projects.name as project_name', 'workflows.name', 'workflows.version'])
      .where('workflow_tools.tool_id', '=', toolId)
      .orderBy('workflows.name')
      .orderBy('workflows.version')
      .execute();
    return rows.map((r) => `${r.account_name}/${r.project_name}/${r.name}:${r.version}`);
  }

  async deleteWorkflow(id: string): Promise<void> {
    await this.retrying(async (trx) => {
      await trx.deleteFrom('workflow_tools').where('workflow_id', '=', id).execute();
      await trx.deleteFrom('workflows').where('id', '=', id).execute();
    }, () => false);
  }

  // ---- tasks and jobs -------------------------------------------------------------------------

  private taskQuery(db: Kysely<Database> = this.db) {
    return db
      .selectFrom('tasks')
      .innerJoin('projects', 'projects.id', 'tasks.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .selectAll('tasks')
      .select(['accounts.name as account_name', 'projects.name as project_name'])
      .select(sql<string | null>`case when tasks.lease_expires_at > ${this.now} then tasks.owner end`.as('held_by'));
  }

  async createTask(task: NewTask, jobs: NewJob[]): Promise<Task> {
    const at = now();
    try {
      await this.retrying(async (trx) => {
        await trx
          .insertInto('tasks')
          .values({
            id: task.id,
            project_id: task.projectId,
            name: task.name,
            workflow_id: task.workflowId,
            workflow_name: task.workflowName,
            workflow_version: task.workflowVersion,
            user_name: task.userName,
            status: task.status,
            reason: task.reason,
            parameters: JSON.stringify(task.parameters),
            plan: JSON.stringify(task.plan),
            schedule_at: task.scheduleAt,
            stop_requested: task.stopRequested ? 1 : 0,
            owner: null,
            lease_expires_at: null,
            created_at: task.createdAt,
            started_at: null,
            ended_at: null,
            modified_at: at,
          })
          .execute();
        // Insert jobs in chunks: SQLite limits the number of bound parameters per statement.
        for (let i = 0; i < jobs.length; i += 50) {
          await trx
            .insertInto('jobs')
            .values(
              jobs.slice(i, i + 50).map((job) => ({
                id: job.id,
                task_id: job.taskId,
                node_id: job.nodeId,
                name: job.name,
                status: job.status,
                reason: job.reason,
                command: job.command,
                spec: JSON.stringify(job.spec),
                attempt: job.attempt,
                exit_code: null,
                cpu: job.cpu,
                mem_mb: job.memMb,
                external_id: null,
                started_at: null,
                ended_at: null,
                modified_at: at,
              })),
            )
            .execute();
        }
        await trx.insertInto('task_events').values({ task_id: task.id, job_id: null, from_status: null, to_status: task.status, reason: task.reason, at }).execute();
      }, () => false);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExists(`task '${task.name}'`);
      throw error;
    }
    return (await this.getTask(task.id))!;
  }

  async getTask(id: string): Promise<Task | undefined> {
    const row = await this.taskQuery().where('tasks.id', '=', id).executeTakeFirst();
    return row && toTask(row);
  }

  async listTasks(projectId: string, range: TaskRange): Promise<{ tasks: Task[]; total: number }> {
    // Tasks being deleted are gone for readers already. The page's ids come from the index on (project_id,
    // created_at, id) alone, so that skipping (offset) steps over index entries, not rows; only the page is joined.
    let page = this.db.selectFrom('tasks').select('id').where('project_id', '=', projectId).where('delete_requested', '=', 0);
    let count = this.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .where('delete_requested', '=', 0);
    // Whole-second granularity: a task created at 12.7 s is inside to=12 (clients send floor(now)).
    if (range.from !== undefined) {
      page = page.where('created_at', '>=', range.from);
      count = count.where('created_at', '>=', range.from);
    }
    if (range.to !== undefined) {
      page = page.where('created_at', '<', range.to + 1);
      count = count.where('created_at', '<', range.to + 1);
    }
    const { after } = range;
    if (after) {
      page = page.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
    }
    page = page.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(range.limit).offset(range.offset ?? 0);
    const ids = (await page.execute()).map((r) => r.id);
    const rows = ids.length === 0 ? [] : await this.taskQuery().where('tasks.id', 'in', ids).orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').execute();
    const { n } = await count.executeTakeFirstOrThrow();
    return { tasks: rows.map(toTask), total: Number(n) };
  }

  async updateTask(id: string, patch: TaskPatch, expect?: readonly TaskStatus[]): Promise<boolean> {
    return this.retrying((trx) => this.patchTask(trx, id, patch, expect), () => false);
  }

  /** Change one task inside a transaction; a status change is also written as a task event. */
  private async patchTask(trx: Kysely<Database>, id: string, patch: TaskPatch, expect?: readonly TaskStatus[]): Promise<boolean> {
    const current = await trx.selectFrom('tasks').select(['status']).where('id', '=', id).executeTakeFirst();
    if (!current || (expect && !expect.includes(current.status as TaskStatus))) return false;
    const at = now();
    await trx
      .updateTable('tasks')
      .set({
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(patch.reason !== undefined ? { reason: patch.reason } : {}),
        ...(patch.startedAt !== undefined ? { started_at: patch.startedAt } : {}),
        ...(patch.endedAt !== undefined ? { ended_at: patch.endedAt } : {}),
        ...(patch.stopRequested !== undefined ? { stop_requested: patch.stopRequested ? 1 : 0 } : {}),
        ...(patch.deleteRequested !== undefined ? { delete_requested: patch.deleteRequested ? 1 : 0 } : {}),
        modified_at: at,
      })
      .where('id', '=', id)
      .execute();
    await recordTransition(trx, { taskId: id, jobId: null, from: current.status, patch, at });
    return true;
  }

  async deleteTask(id: string, owner?: string): Promise<boolean> {
    return this.retrying(async (trx) => {
      if (owner !== undefined && (await this.heldBy(trx, owner, [id])).size === 0) return false;
      await trx.deleteFrom('task_events').where('task_id', '=', id).execute();
      await trx.deleteFrom('jobs').where('task_id', '=', id).execute();
      const result = await trx.deleteFrom('tasks').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    }, () => false);
  }

  async listJobs(taskId: string): Promise<Job[]> {
    const rows = await this.db.selectFrom('jobs').selectAll().where('task_id', '=', taskId).orderBy('id').execute();
    return rows.map(toJob);
  }

  async jobStatusCounts(taskIds: string[]): Promise<Map<string, Partial<Record<JobStatus, number>>>> {
    const counts = new Map<string, Partial<Record<JobStatus, number>>>(taskIds.map((id) => [id, {}]));
    if (taskIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('jobs')
      .select(['task_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('task_id', 'in', taskIds)
      .groupBy(['task_id', 'status'])
      .execute();
    for (const row of rows) counts.get(row.task_id)![row.status as JobStatus] = Number(row.n);
    return counts;
  }

  async getJob(id: string): Promise<Job | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  async updateJob(id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean> {
    return this.retrying((trx) => this.patchJob(trx, id, patch, expect), () => false);
  }

  async applyChanges(changes: StateChanges): Promise<AppliedChanges> {
    const release = changes.release ?? [];
    if ((changes.tasks?.length ?? 0) + (changes.jobs?.length ?? 0) + release.length === 0) return { lost: [] };
    return this.retrying(
      async (trx) => {
        const { owner } = changes;
        const touched = new Set([...(changes.tasks ?? []).map((c) => c.id), ...(changes.jobs ?? []).map((c) => c.taskId), ...release]);
        // The lease check and the writes are one transaction, and the task rows stay locked (PostgreSQL) until
        // its end: a worker that lost a task cannot write over its new owner's state.
        const held = owner === undefined ? touched : await this.heldBy(trx, owner, [...touched]);
        for (const { id, taskId, patch, expect } of changes.jobs ?? []) if (held.has(taskId)) await this.patchJob(trx, id, patch, expect);
        for (const { id, patch, expect } of changes.tasks ?? []) if (held.has(id)) await this.patchTask(trx, id, patch, expect);
        const released = release.filter((id) => held.has(id));
        if (released.length > 0) await trx.updateTable('tasks').set({ owner: null, lease_expires_at: null }).where('id', 'in', released).execute();
        return { lost: [...touched].filter((id) => !held.has(id)) };
      },
      () => false,
      changes.relaxed === true,
    );
  }

  /** Which of these tasks `owner` holds a live lease on, locking their rows where the backend can. */
  private async heldBy(trx: Kysely<Database>, owner: string, taskIds: string[]): Promise<Set<string>> {
    if (taskIds.length === 0) return new Set();
    const rows = await trx
      .selectFrom('tasks')
      .select('id')
      .where('id', 'in', taskIds)
      .where('owner', '=', owner)
      .where('lease_expires_at', '>', this.now)
      .$if(this.capabilities.rowLocks, (q) => q.forUpdate())
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  // ---- leases (WorkStore) ---------------------------------------------------------------------

  async claimTasks(owner: string, limit: number, ttlSeconds: number): Promise<Task[]> {
    if (limit <= 0) return [];
    const ids = await this.retrying(async (trx) => {
      // One statement each: the choice and the take are atomic (on PostgreSQL the candidates are locked, and rows
      // another worker is taking are skipped rather than waited for). Expired leases first: their tasks were
      // running and their owner is gone.
      const lock = this.capabilities.rowLocks ? sql`for update skip locked` : sql``;
      const take = async (candidates: RawBuilder<unknown>) => {
        const { rows } = await sql<{ id: string }>`update tasks set owner = ${owner}, lease_expires_at = ${this.now} + ${ttlSeconds}
          where id in (${candidates}) returning id`.execute(trx);
        return rows.map((r) => r.id);
      };
      const expired = await take(sql`select id from tasks where owner is not null and lease_expires_at < ${this.now} and ${ACTIVE_TASK}
        order by lease_expires_at limit ${limit} ${lock}`);
      const room = limit - expired.length;
      const fresh =
        room <= 0
          ? []
          : await take(sql`select id from tasks where ${ACTIVE_TASK} and owner is null and (schedule_at is null or schedule_at <= ${this.now})
              order by created_at limit ${room} ${lock}`);
      return [...expired, ...fresh];
    }, () => false);
    if (ids.length === 0) return [];
    const rows = await this.taskQuery().where('tasks.id', 'in', ids).orderBy('tasks.created_at').execute();
    return rows.map(toTask);
  }

  async renewLeases(owner: string, ttlSeconds: number): Promise<string[]> {
    const rows = await this.db
      .updateTable('tasks')
      .set({ lease_expires_at: sql<number>`${this.now} + ${ttlSeconds}` })
      .where('owner', '=', owner)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }

  async releaseTasks(owner: string, taskIds: string[]): Promise<void> {
    if (taskIds.length === 0) return;
    await this.db.updateTable('tasks').set({ owner: null, lease_expires_at: null }).where('owner', '=', owner).where('id', 'in', taskIds).execute();
  }

  async requestedTasks(owner: string): Promise<HeldTaskFlags[]> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(['id', 'stop_requested', 'delete_requested'])
      .where('owner', '=', owner)
      .where((eb) => eb.or([eb('stop_requested', '=', 1), eb('delete_requested', '=', 1)]))
      .execute();
    return rows.map((r) => ({ id: r.id, stopRequested: r.stop_requested !== 0, deleteRequested: r.delete_requested !== 0 }));
  }

  async leaseHolders(): Promise<string[]> {
    const rows = await this.db.selectFrom('tasks').select('owner').distinct().where('owner', 'is not', null).where('lease_expires_at', '>', this.now).execute();
    return rows.map((r) => r.owner!);
  }

  async expireLeases(owner: string): Promise<void> {
    await this.db.updateTable('tasks').set({ lease_expires_at: 0 }).where('owner', '=', owner).execute();
  }

  async lockTask(id: string): Promise<Task | undefined> {
    const row = await this.taskQuery()
      .where('tasks.id', '=', id)
      .$if(this.capabilities.rowLocks, (q) => q.forUpdate(['tasks']))
      .executeTakeFirst();
    return row && toTask(row);
  }

  /** Change one job inside a transaction; a status change is also written as a task event. */
  private async patchJob(trx: Kysely<Database>, id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean> {
    const current = await trx.selectFrom('jobs').select(['status', 'task_id']).where('id', '=', id).executeTakeFirst();
    if (!current || (expect && !expect.includes(current.status as JobStatus))) return false;
    const at = now();
    await trx
      .updateTable('jobs')
      .set({
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(patch.reason !== undefined ? { reason: patch.reason } : {}),
        ...(patch.attempt !== undefined ? { attempt: patch.attempt } : {}),
        ...(patch.exitCode !== undefined ? { exit_code: patch.exitCode } : {}),
        ...(patch.startedAt !== undefined ? { started_at: patch.startedAt } : {}),
        ...(patch.endedAt !== undefined ? { ended_at: patch.endedAt } : {}),
        ...(patch.command !== undefined ? { command: patch.command } : {}),
        ...(patch.externalId !== undefined ? { external_id: patch.externalId } : {}),
        modified_at: at,
      })
      .where('id', '=', id)
      .execute();
    await recordTransition(trx, { taskId: current.task_id, jobId: id, from: current.status, patch, at });
    return true;
  }

  async taskEvents(taskId: string): Promise<TaskEvent[]> {
    const rows = await this.db.selectFrom('task_events').selectAll().where('task_id', '=', taskId).orderBy('id').execute();
    return rows.map((r) => ({ taskId: r.task_id, jobId: r.job_id, from: r.from_status, to: r.to_status, reason: r.reason, at: r.at }));
  }

  // ---- settings ---------------------------------------------------------------------------------

  async getSetting(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  async initSetting(key: string, value: string): Promise<string> {
    try {
      await this.db.insertInto('settings').values({ key, value }).execute();
      return value;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return (await this.getSetting(key))!;
    }
  }
}
