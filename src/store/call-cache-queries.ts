import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { FileHash } from './store.js';

/**
 * The call cache's queries (store.ts, CallCacheStore): jobs by key or by tool within an account (a job's account is
 * its task's project's), and the content hashes of stored data items.
 */

function accountJobs(db: Kysely<Database>, accountName: string) {
  return db
    .selectFrom('jobs')
    .innerJoin('tasks', 'tasks.id', 'jobs.task_id')
    .innerJoin('projects', 'projects.id', 'tasks.project_id')
    .innerJoin('accounts', 'accounts.id', 'projects.account_id')
    .selectAll('jobs')
    .where('accounts.name', '=', accountName)
    .where('tasks.delete_requested', '=', 0);
}

export function findCachedJobRows(db: Kysely<Database>, accountName: string, cacheKey: string, limit: number) {
  return accountJobs(db, accountName)
    .where('jobs.cache_key', '=', cacheKey)
    .where('jobs.status', '=', 'succeeded')
    .orderBy('jobs.ended_at', 'desc')
    .limit(limit)
    .execute();
}

/** Keys per statement: well under SQLite's limit of bound parameters. */
const KEYS_PER_QUERY = 500;

/**
 * findCachedJobRows for many keys (an activation's, domain/tasks/cached-rerun.ts): one statement per 500 keys, through
 * the same index; at most `limitPerKey` rows of each key are kept, newest first, and with `newestTaskWhole` the other
 * rows of the newest row's task too. The rest are dropped here, before they are made jobs (five JSON parses a row):
 * a key has a row per run of its node, so a workflow rerun daily would otherwise parse its whole history each time.
 */
export async function findCachedJobRowsByKeys(
  db: Kysely<Database>,
  accountName: string,
  cacheKeys: readonly string[],
  limitPerKey: number,
  options: { newestTaskWhole?: boolean } = {},
) {
  const keys = [...new Set(cacheKeys)];
  const rows = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
    const part = keys.slice(i, i + KEYS_PER_QUERY);
    rows.push(
      ...(await accountJobs(db, accountName)
        .where('jobs.cache_key', 'in', part)
        .where('jobs.status', '=', 'succeeded')
        .orderBy('jobs.ended_at', 'desc')
        .execute()),
    );
  }
  // Each statement's rows are newest first, and a key is in one statement only: the first row seen is the newest.
  const seen = new Map<string, { count: number; newestTask: string }>();
  return rows.filter((row) => {
    let key = seen.get(row.cache_key!);
    if (!key) seen.set(row.cache_key!, (key = { count: 0, newestTask: row.task_id }));
    const keep = key.count < limitPerKey || (options.newestTaskWhole === true && row.task_id === key.newestTask);
    key.count++;
    return keep;
  });
}

/**
 * The jobs of other tasks whose cached_from is a job of this one. A hit has the key of the job it reuses, so the
 * (cache_key, ended_at) index finds them: no index on cached_from is needed.
 */
export async function jobsReusingRows(db: Kysely<Database>, taskId: string) {
  const ofTask = (column: 'id' | 'cache_key') => db.selectFrom('jobs').select(column).where('task_id', '=', taskId);
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'task_id', 'node_id', 'cached_from'])
    .where('cache_key', 'in', ofTask('cache_key').where('cache_key', 'is not', null))
    .where('cached_from', 'in', ofTask('id'))
    .where('task_id', '<>', taskId)
    .execute();
  return rows.map((row) => ({ id: row.id, taskId: row.task_id, nodeId: row.node_id, cachedFrom: row.cached_from }));
}

export function keyedJobRowsOfTool(db: Kysely<Database>, accountName: string, toolName: string, limit: number) {
  return accountJobs(db, accountName)
    .where('jobs.name', '=', toolName)
    .where('jobs.cache_parts', 'is not', null)
    .where('jobs.ended_at', 'is not', null)
    .orderBy('jobs.ended_at', 'desc')
    .limit(limit)
    .execute();
}

export async function getContentHash(db: Kysely<Database>, account: string, path: string): Promise<FileHash | undefined> {
  const row = await db.selectFrom('content_hashes').selectAll().where('account', '=', account).where('path', '=', path).executeTakeFirst();
  // PostgreSQL's driver reads a bigint as text.
  return row && { sha256: row.sha256, size: Number(row.size), mtimeMs: Number(row.mtime_ms) };
}

export async function putContentHash(db: Kysely<Database>, account: string, path: string, hash: FileHash): Promise<void> {
  const values = { sha256: hash.sha256, size: hash.size, mtime_ms: hash.mtimeMs };
  await db
    .insertInto('content_hashes')
    .values({ account, path, ...values })
    .onConflict((oc) => oc.columns(['account', 'path']).doUpdateSet(values))
    .execute();
}
