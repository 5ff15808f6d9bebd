import type { Kysely, Selectable } from 'kysely';
import { TERMINAL_TASK_STATES } from '../domain/tasks/states.js';
import { bumpCacheGeneration } from './cache-generation.js';
import { DefinitionStore, now, parseJson, type Owner, type TransactionState } from './definition-store.js';
import type { Database, JobsTable, TasksTable } from './schema.js';
import { isUniqueViolation } from './sql-errors.js';
import {
  AlreadyExists,
  type Job,
  type JobPatch,
  type JobStatus,
  type NewJob,
  type NewTask,
  type Task,
  type TaskEvent,
  type TaskPatch,
  type TaskStatus,
  type StateChanges,
  type Store,
} from './store.js';

function toTask(row: Selectable<TasksTable> & Owner): Task {
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

/** PostgreSQL takes OFFSET as a bigint and refuses a larger number rather than returning nothing. */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** What differs between the backends beyond SQL itself (which the Kysely dialect handles). */
export interface KyselyStoreOptions {
  /**
   * Runs `fn` in a transaction whose commit may return before it is on disk (SQLite: `synchronous=NORMAL` for
   * that commit; PostgreSQL: `synchronous_commit = off`). It survives a crash of the server process, not of the
   * machine. Without it, such transactions are ordinary, durable ones.
   */
  relaxedTransaction?: <T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;
  onClose?: () => Promise<void>;
}

/**
 * The store over Kysely. The same code serves SQLite and PostgreSQL: what differs is in the Kysely
 * dialect, in `capabilities` with the SQL fragments of dialect.ts, and in `options`. Accounts, keys,
 * tools and workflows are in DefinitionStore (definition-store.ts); tasks and jobs are here.
 */
export class KyselyStore extends DefinitionStore implements Store {
  async transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn(this);
    return this.db.transaction().execute(async (trx) => {
      const state: TransactionState = { cacheChanged: false };
      const result = await fn(new KyselyStore(trx, this.capabilities, this.options, state));
      if (state.cacheChanged) await bumpCacheGeneration(trx, this.dialect);
      return result;
    });
  }

  async close(): Promise<void> {
    await (this.options.onClose ?? (() => this.db.destroy()))();
  }

  // ---- tasks and jobs -------------------------------------------------------------------------

  private taskQuery() {
    return this.db
      .selectFrom('tasks')
      .innerJoin('projects', 'projects.id', 'tasks.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .selectAll('tasks')
      .select(['accounts.name as account_name', 'projects.name as project_name']);
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
                lease_owner: null,
                lease_expires_at: null,
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

  async listTasks(projectId: string, range: { from?: number; to?: number; limit: number; offset?: number }): Promise<{ tasks: Task[]; total: number }> {
    let query = this.taskQuery().where('tasks.project_id', '=', projectId);
    let count = this.db.selectFrom('tasks').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId);
    // Whole-second granularity: a task created at 12.7 s is inside to=12 (clients send floor(now)).
    if (range.from !== undefined) {
      query = query.where('tasks.created_at', '>=', range.from);
      count = count.where('created_at', '>=', range.from);
    }
    if (range.to !== undefined) {
      query = query.where('tasks.created_at', '<', range.to + 1);
      count = count.where('created_at', '<', range.to + 1);
    }
    const rows = await query.orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').limit(range.limit).offset(Math.min(range.offset ?? 0, MAX_OFFSET)).execute();
    const { n } = await count.executeTakeFirstOrThrow();
    return { tasks: rows.map(toTask), total: Number(n) };
  }

  async activeTaskFlags(): Promise<Array<{ id: string; stopRequested: boolean }>> {
    const rows = await this.db.selectFrom('tasks').select(['id', 'stop_requested']).where('status', 'not in', [...TERMINAL_TASK_STATES]).orderBy('created_at').execute();
    return rows.map((r) => ({ id: r.id, stopRequested: r.stop_requested !== 0 }));
  }

  async updateTask(id: string, patch: TaskPatch, expect?: readonly TaskStatus[]): Promise<boolean> {
    return this.retrying((trx) => this.patchTask(trx, id, patch, expect), () => false);
  }

  /**
   * Change one task inside a transaction; a status change is also written as a task event. The row
   * is locked while its status is compared (PostgreSQL; SQLite's writers are serial): a concurrent
   * compare-and-set waits, then reads the status this one wrote, so of two racing changes from the
   * same status one wins and the event's `from` is the status actually replaced.
   */
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
        modified_at: at,
      })
      .where('id', '=', id)
      .execute();
    await recordTransition(trx, { taskId: id, jobId: null, from: current.status, patch, at });
    return true;
  }

  async deleteTask(id: string): Promise<void> {
    await this.retrying(async (trx) => {
      await trx.deleteFrom('task_events').where('task_id', '=', id).execute();
      await trx.deleteFrom('jobs').where('task_id', '=', id).execute();
      await trx.deleteFrom('tasks').where('id', '=', id).execute();
    }, () => false);
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

  async getJob(id: string): Promise<Job | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  async updateJob(id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean> {
    return this.retrying((trx) => this.patchJob(trx, id, patch, expect), () => false);
  }

  async applyChanges(changes: StateChanges): Promise<void> {
    if ((changes.tasks?.length ?? 0) + (changes.jobs?.length ?? 0) === 0) return;
    await this.retrying(
      async (trx) => {
        for (const { id, patch, expect } of changes.jobs ?? []) await this.patchJob(trx, id, patch, expect);
        for (const { id, patch, expect } of changes.tasks ?? []) await this.patchTask(trx, id, patch, expect);
      },
      () => false,
      changes.relaxed === true,
    );
  }

  /** Change one job inside a transaction, its row locked as in patchTask; a status change is also written as a task event. */
  private async patchJob(trx: Kysely<Database>, id: string, patch: JobPatch, expect?: readonly JobStatus[]): Promise<boolean> {
    const current = await this.dialect.lockRows(trx.selectFrom('jobs').select(['status', 'task_id']).where('id', '=', id), 'update').executeTakeFirst();
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
}
