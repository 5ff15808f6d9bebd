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
