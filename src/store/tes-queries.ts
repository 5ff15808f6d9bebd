/**
 * The TES tasks' own rows (migration 0012): their TES names and tags, written with the task, and the page of a TES
 * list (docs/ga4gh.md): a range of tes_tasks_project_created, newest first, narrowed by name prefix, gdflow state and
 * tags.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { NewTask, TesTaskQuery } from './store.js';

export async function insertTesRows(trx: Kysely<Database>, task: NewTask, tes: { name: string; tags: Record<string, string> }): Promise<void> {
  await trx.insertInto('tes_tasks').values({ task_id: task.id, project_id: task.projectId, name: tes.name, created_at: task.createdAt }).execute();
  const tags = Object.entries(tes.tags);
  // In chunks: SQLite limits the number of bound parameters per statement.
  for (let i = 0; i < tags.length; i += 100) {
    await trx
      .insertInto('tes_task_tags')
      .values(tags.slice(i, i + 100).map(([key, value]) => ({ task_id: task.id, key, value })))
      .execute();
  }
}

/** The ids (one more than the page: whether another follows) of a TES list's page. */
export function tesTaskPage(db: Kysely<Database>, projectId: string, query: TesTaskQuery): Promise<Array<{ task_id: string }>> {
  let q = db
    .selectFrom('tes_tasks')
    .innerJoin('tasks', 'tasks.id', 'tes_tasks.task_id')
    .select('tes_tasks.task_id')
    .where('tes_tasks.project_id', '=', projectId)
    .where('tasks.delete_requested', '=', 0);
  const { after, namePrefix, statuses, tags } = query;
  if (after) q = q.where((eb) => eb(eb.refTuple('tes_tasks.created_at', 'tes_tasks.task_id'), '<', eb.tuple(after.createdAt, after.id)));
  // substr, not LIKE: a prefix is matched case-sensitively and its % and _ are plain characters.
  if (namePrefix) q = q.where((eb) => eb(eb.fn('substr', ['tes_tasks.name', eb.val(1), eb.val([...namePrefix].length)]), '=', namePrefix));
  if (statuses !== undefined) q = statuses.length === 0 ? q.where((eb) => eb.val(1), '=', 0) : q.where('tasks.status', 'in', [...statuses]);
  for (const tag of tags ?? []) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('tes_task_tags')
          .select('tes_task_tags.task_id')
          .whereRef('tes_task_tags.task_id', '=', 'tes_tasks.task_id')
          .where('tes_task_tags.key', '=', tag.key)
          .$if(tag.value !== undefined, (sub) => sub.where('tes_task_tags.value', '=', tag.value!)),
      ),
    );
  }
  return q
    .orderBy('tes_tasks.created_at', 'desc')
    .orderBy('tes_tasks.task_id', 'desc')
    .limit(query.limit + 1)
    .execute();
}
