import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { DataProvenance, TaskStatus } from './store.js';

/**
 * The data provenance rows (store.ts, DataProvenanceStore): written by the engine with a store step's end, read by the
 * data list and a task's outputs by the items' names (the primary key), never by scanning.
 */

/** Names per statement: well under SQLite's limit of bound parameters. */
const CHUNK = 500;

function columns(p: DataProvenance) {
  return {
    task_id: p.taskId,
    task_name: p.taskName,
    job_id: p.jobId,
    node_id: p.nodeId,
    store_job_id: p.storeJobId,
    store_node_id: p.storeNodeId,
    size: p.size,
    mtime_ms: p.mtimeMs,
    stored_at: p.storedAt,
  };
}

/** Record stored items; a later store to the same name replaces the row. One statement per item (a store step's few). */
export async function putProvenance(trx: Kysely<Database>, items: DataProvenance[]): Promise<void> {
  for (const item of items) {
    const values = columns(item);
    await trx
      .insertInto('data_provenance')
      .values({ account: item.account, path: item.path, ...values })
      .onConflict((oc) => oc.columns(['account', 'path']).doUpdateSet(values))
      .execute();
  }
}

type WithStatus = DataProvenance & { taskStatus: TaskStatus | null };

export async function getProvenance(db: Kysely<Database>, account: string, paths: string[]): Promise<WithStatus[]> {
  const out: WithStatus[] = [];
  const unique = [...new Set(paths)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const rows = await db
      .selectFrom('data_provenance as p')
      .leftJoin('tasks as t', 't.id', 'p.task_id')
      .selectAll('p')
      // A task being deleted is gone for readers already.
      .select(sql<string | null>`case when t.delete_requested = 0 then t.status end`.as('task_status'))
      .where('p.account', '=', account)
      .where('p.path', 'in', unique.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) {
      out.push({
        account: r.account,
        path: r.path,
        taskId: r.task_id,
        taskName: r.task_name,
        jobId: r.job_id,
        nodeId: r.node_id,
        storeJobId: r.store_job_id,
        storeNodeId: r.store_node_id,
        // PostgreSQL's driver reads a bigint as text.
        size: Number(r.size),
        mtimeMs: Number(r.mtime_ms),
        storedAt: Number(r.stored_at),
        taskStatus: r.task_status as TaskStatus | null,
      });
    }
  }
  return out;
}
