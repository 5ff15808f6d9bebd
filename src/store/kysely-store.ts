import { sql, type Kysely, type RawBuilder } from 'kysely';
import { insertAudit, selectAudit } from './audit-log.js';
import { bumpCacheGeneration } from './cache-generation.js';
import { now } from './definition-rows.js';
import { withAudit, type TransactionState } from './account-store.js';
import { DefinitionStore } from './definition-store.js';
import { jobPatchColumns, writeJobChanges } from './job-changes.js';
import { findCachedJobRows, findCachedJobRowsByKeys, getContentHash, jobsReusingRows, keyedJobRowsOfTool, putContentHash } from './call-cache-queries.js';
import { getProvenance, putProvenance } from './provenance-queries.js';
import { insertTesRows, tesTaskPage } from './tes-queries.js';
import { taskListPage } from './task-list-queries.js';
import { LocalWorkEvents } from './local-events.js';
import { KyselyWdlStore } from './wdl-store.js';
import type { WdlStore } from './wdl.js';
import { insertEndedJobEvents, insertJobs, recordTransition, toJob, toTask } from './task-rows.js';
import type { Database } from './schema.js';
import type { KyselyStoreOptions } from './kysely-options.js';
import { isUniqueViolation } from './sql-errors.js';
import {
  AlreadyExists,
  type AppliedChanges,
  type AuditEntry,
  type AuditQuery,
  type AuditRecord,
  type DataProvenance,
  type FileHash,
  type HeldTaskFlags,
  type WorkEvents,
  type Job,
  type JobPatch,
  type JobStatus,
  type NewJob,
  type NewTask,
  type ReusingJob,
  type Task,
  type TaskEvent,
  type TaskPatch,
  type TaskPage,
  type TaskRange,
  type TesTaskQuery,
  type TaskStatus,
  type StateChanges,
  type Store,
  type StoreCapabilities,
} from './store.js';
import { stringifyExactJson } from '../contract/exact-json.js';

/** Unfinished task states, written as in the partial index tasks_claimable (migration 0003) so that it is used. */
const ACTIVE_TASK = sql`status in ('scheduled', 'queued', 'running', 'stopping')`;

/**
 * The store over Kysely. The same code serves SQLite and PostgreSQL: what differs is in the Kysely
 * dialect, in `capabilities` with the SQL fragments of dialect.ts, and in `options`. Accounts, keys,
 * tools and workflows are in DefinitionStore (definition-store.ts); tasks, jobs and leases are here.
 */
export class KyselyStore extends DefinitionStore implements Store {
  readonly events: WorkEvents;
  readonly wdl: WdlStore;

  constructor(db: Kysely<Database>, capabilities: StoreCapabilities, options: KyselyStoreOptions = {}, txState?: TransactionState) {
    super(db, capabilities, options, txState);
    this.events = options.events ?? new LocalWorkEvents();
    this.wdl = new KyselyWdlStore(db, this.dialect, (fn) => this.retrying(fn, () => false));
  }

  async transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn(this);
    const options = { ...this.options, events: this.events };
    return this.retrying(
      async (trx) => {
        const state: TransactionState = { cacheChanged: false };
        const result = await fn(new KyselyStore(trx, this.capabilities, options, state));
        if (state.cacheChanged) await bumpCacheGeneration(trx, this.dialect);
        return result;
      },
      () => false,
    );
  }

  /** The database's clock (leases are measured with it). */
  private get now() {
    return this.dialect.epochNow();
  }

  // ---- audit log ------------------------------------------------------------------------------

  /** In a transaction, the entry is one more statement of it: it commits with the write it records, or not at all. */
  async recordAudit(entry: AuditEntry): Promise<void> {
    await insertAudit(this.db, entry, now());
  }

  listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    return selectAudit(this.db, query);
  }

  async close(): Promise<void> {
    await (this.options.onClose ?? (() => this.db.destroy()))();
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

  /** Nothing is read back: an activation is a handful of statements, and on PostgreSQL each is a round trip. */
  async createTask(task: NewTask, jobs: NewJob[], audit?: AuditEntry): Promise<void> {
    const at = now();
    try {
      await this.retrying(
        withAudit(async (trx) => {
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
              status: task.ended ? 'succeeded' : task.status,
              reason: task.ended ? task.ended.reason : task.reason,
              parameters: stringifyExactJson(task.parameters),
              plan: stringifyExactJson(task.plan),
              schedule_at: task.scheduleAt,
              stop_requested: task.stopRequested ? 1 : 0,
              owner: null,
              lease_expires_at: null,
              created_at: task.createdAt,
              started_at: task.ended?.at ?? null,
              ended_at: task.ended?.at ?? null,
              modified_at: at,
            })
            .execute();
          await insertJobs(trx, jobs, at);
          const created = { task_id: task.id, job_id: null, from_status: null, to_status: task.status, reason: task.reason, at };
          const ended = task.ended && { ...created, from_status: task.status, to_status: 'succeeded', reason: task.ended.reason };
          await trx
            .insertInto('task_events')
            .values(ended ? [created, ended] : [created])
            .execute();
          await insertEndedJobEvents(trx, jobs, at);
          if (task.tes) await insertTesRows(trx, task, task.tes);
        }, audit),
        () => false,
      );
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Which key: the name, or (as good as never: 8 random bytes in the same second) the task's id.
      const named = await this.db.selectFrom('tasks').select('id').where('project_id', '=', task.projectId).where('name', '=', task.name).executeTakeFirst();
      throw named ? new AlreadyExists(`task '${task.name}'`) : new AlreadyExists(`task id '${task.id}'`, 'id');
    }
  }

  async getTask(id: string): Promise<Task | undefined> {
    const row = await this.taskQuery().where('tasks.id', '=', id).executeTakeFirst();
    return row && toTask(row);
  }

  async listTasks(projectId: string, range: TaskRange): Promise<TaskPage> {
    const { ids, more, total } = await taskListPage(this.db, this.dialect, projectId, range);
    const rows =
      ids.length === 0 ? [] : await this.taskQuery().where('tasks.id', 'in', ids).orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').execute();
    return { tasks: rows.map(toTask), total, more };
  }

  async listTesTasks(projectId: string, query: TesTaskQuery): Promise<{ tasks: Task[]; more: boolean }> {
    const rows = await tesTaskPage(this.db, projectId, query);
    const more = rows.length > query.limit;
    const ids = rows.slice(0, query.limit).map((r) => r.task_id);
    const tasks =
      ids.length === 0 ? [] : await this.taskQuery().where('tasks.id', 'in', ids).orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').execute();
    return { tasks: tasks.map(toTask), more };
  }

  async updateTask(id: string, patch: TaskPatch, expect?: readonly TaskStatus[]): Promise<boolean> {
    return this.retrying(
      (trx) => this.patchTask(trx, id, patch, expect),
      () => false,
    );
  }

  /** Change one task inside a transaction; a status change is also written as a task event. */
  private async patchTask(trx: Kysely<Database>, id: string, patch: TaskPatch, expect?: readonly TaskStatus[]): Promise<boolean> {
    const current = await this.dialect.lockRows(trx.selectFrom('tasks').select(['status']).where('id', '=', id), 'update').executeTakeFirst();
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
    return this.retrying(
      async (trx) => {
        if (owner !== undefined && (await this.heldBy(trx, owner, [id])).size === 0) return false;
        await trx.deleteFrom('task_events').where('task_id', '=', id).execute();
        await trx.deleteFrom('jobs').where('task_id', '=', id).execute();
        const result = await trx.deleteFrom('tasks').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
      () => false,
    );
  }

  async listJobs(taskId: string): Promise<Job[]> {
    const rows = await this.db.selectFrom('jobs').selectAll().where('task_id', '=', taskId).orderBy(this.dialect.byteOrder('id')).execute();
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

  async stateCounts(): Promise<{ tasks: Partial<Record<TaskStatus, number>>; jobs: Partial<Record<JobStatus, number>> }> {
    const tasks = this.db
      .selectFrom('tasks')
      .select([sql<string>`'task'`.as('kind'), 'tasks.status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tasks.delete_requested', '=', 0)
      .groupBy('tasks.status');
    const jobs = this.db
      .selectFrom('jobs')
      .innerJoin('tasks', 'tasks.id', 'jobs.task_id')
      .select([sql<string>`'job'`.as('kind'), 'jobs.status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tasks.status', 'in', ['scheduled', 'queued', 'running', 'stopping'])
      .where('tasks.delete_requested', '=', 0)
      .groupBy('jobs.status');
    const counts = { tasks: {} as Partial<Record<TaskStatus, number>>, jobs: {} as Partial<Record<JobStatus, number>> };
    for (const row of await tasks.unionAll(jobs).execute()) {
      if (row.kind === 'task') counts.tasks[row.status as TaskStatus] = Number(row.n);
      else counts.jobs[row.status as JobStatus] = Number(row.n);
    }
    return counts;
  }

  async getJob(id: string): Promise<Job | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  jobsReusing(taskId: string): Promise<ReusingJob[]> {
    return jobsReusingRows(this.db, taskId);
  }

  async updateJob(id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean> {
    return this.retrying(
      (trx) => this.patchJob(trx, id, patch, expect),
      () => false,
    );
  }

  async applyChanges(changes: StateChanges): Promise<AppliedChanges> {
    const release = changes.release ?? [];
    const newJobs = changes.newJobs ?? [];
    const stored = changes.stored ?? [];
    const count = (changes.tasks?.length ?? 0) + (changes.jobs?.length ?? 0) + release.length + stored.length + newJobs.length;
    if (count === 0) return { lost: [] };
    return this.retrying(
      async (trx) => {
        const { owner } = changes;
        const touched = new Set([
          ...newJobs.map((j) => j.taskId),
          ...(changes.tasks ?? []).map((c) => c.id),
          ...(changes.jobs ?? []).map((c) => c.taskId),
          ...stored.map((p) => p.taskId),
          ...release,
        ]);
        // The lease check and the writes are one transaction, and the task rows stay locked (PostgreSQL) until
        // its end: a worker that lost a task cannot write over its new owner's state.
        const held = owner === undefined ? touched : await this.heldBy(trx, owner, [...touched]);
        const at = now();
        // New jobs first: the changes of the same pass may move them on.
        await insertJobs(
          trx,
          newJobs.filter((j) => held.has(j.taskId)),
          at,
        );
        await writeJobChanges(
          trx,
          this.dialect,
          (changes.jobs ?? []).filter((c) => held.has(c.taskId)),
          at,
        );
        for (const { id, patch, expect } of changes.tasks ?? []) if (held.has(id)) await this.patchTask(trx, id, patch, expect);
        await putProvenance(
          trx,
          stored.filter((p) => held.has(p.taskId)),
        );
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
      .$if(this.dialect.rowLocks, (q) => q.forUpdate())
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  // ---- leases (WorkStore) ---------------------------------------------------------------------

  async claimTasks(owner: string, limit: number, ttlSeconds: number): Promise<Task[]> {
    if (limit <= 0) return [];
    const ids = await this.retrying(
      async (trx) => {
        // One statement each: the choice and the take are atomic (on PostgreSQL the candidates are locked, and rows
        // another worker is taking are skipped rather than waited for). Expired leases first: their tasks were
        // running and their owner is gone.
        const lock = this.dialect.rowLocks ? sql`for update skip locked` : sql``;
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
      },
      () => false,
      // On SQLite the claim is committed without waiting for the disk: the workers that share the file share the
      // machine, so a claim lost to a power cut took its worker with it (the task is claimed again, as after a
      // crash). The fsync ran on the event loop of the server that answers the API, once per claim: with many tasks
      // started at once, most of a GetTool's wait (BENCHMARKS.md, issue 23, item 8). PostgreSQL's claims stay durable:
      // a worker there can outlive the database server's crash, and must not run a job another worker then claims.
      this.dialect.name === 'sqlite',
    );
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
      .$if(this.dialect.rowLocks, (q) => q.forUpdate(['tasks']))
      .executeTakeFirst();
    return row && toTask(row);
  }

  /** Change one job inside a transaction; a status change is also written as a task event. */
  private async patchJob(trx: Kysely<Database>, id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean> {
    const current = await this.dialect.lockRows(trx.selectFrom('jobs').select(['status', 'task_id']).where('id', '=', id), 'update').executeTakeFirst();
    if (!current || (expect && !expect.includes(current.status as JobStatus))) return false;
    const at = now();
    await trx
      .updateTable('jobs')
      .set({ ...jobPatchColumns(patch), modified_at: at })
      .where('id', '=', id)
      .execute();
    await recordTransition(trx, { taskId: current.task_id, jobId: id, from: current.status, patch, at });
    return true;
  }

  async findCachedJobs(accountName: string, cacheKey: string, limit: number): Promise<Job[]> {
    return (await findCachedJobRows(this.db, accountName, cacheKey, limit)).map(toJob);
  }

  async findCachedJobsByKeys(accountName: string, cacheKeys: readonly string[], limitPerKey: number, options?: { newestTaskWhole?: boolean }): Promise<Job[]> {
    return (await findCachedJobRowsByKeys(this.db, accountName, cacheKeys, limitPerKey, options)).map(toJob);
  }

  async keyedJobsOfTool(accountName: string, toolName: string, limit: number): Promise<Job[]> {
    return (await keyedJobRowsOfTool(this.db, accountName, toolName, limit)).map(toJob);
  }

  getContentHash(accountName: string, path: string): Promise<FileHash | undefined> {
    return getContentHash(this.db, accountName, path);
  }

  async putContentHash(accountName: string, path: string, hash: FileHash): Promise<void> {
    await this.retrying(
      (trx) => putContentHash(trx, accountName, path, hash),
      () => false,
    );
  }

  getProvenance(account: string, paths: string[]): Promise<Array<DataProvenance & { taskStatus: TaskStatus | null }>> {
    return getProvenance(this.db, account, paths);
  }

  async taskEvents(taskId: string): Promise<TaskEvent[]> {
    const rows = await this.db.selectFrom('task_events').selectAll().where('task_id', '=', taskId).orderBy('id').execute();
    return rows.map((r) => ({ taskId: r.task_id, jobId: r.job_id, from: r.from_status, to: r.to_status, reason: r.reason, at: r.at }));
  }
}
