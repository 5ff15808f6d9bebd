/**
 * A page of a project's task list (TaskStore.listTasks): the ids of the page's tasks, newest first, whether another
 * page follows, and how many tasks the whole range holds. Every filter is a range of an index that holds all the
 * query reads (migrations 0003 and 0008), so that skipping (offset) and counting step over index entries, not rows.
 */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Database } from './schema.js';
import type { TaskRange, TaskStatus } from './store.js';

/** PostgreSQL takes OFFSET as a bigint and refuses a larger number rather than returning nothing. */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

export interface TaskListPage {
  ids: string[];
  more: boolean;
  /** Undefined when the range holds more than `range.countUpTo` tasks. */
  total: number | undefined;
}

export async function taskListPage(db: Kysely<Database>, dialect: SqlDialect, projectId: string, range: TaskRange): Promise<TaskListPage> {
  const statuses = range.statuses === undefined ? undefined : [...new Set(range.statuses)];
  if (statuses?.length === 0) return { ids: [], total: 0, more: false };
  // Tasks being deleted are gone for readers already. Every filter is a range of an index that holds all the query
  // reads (migrations 0003 and 0008), so that skipping (offset) and counting step over index entries, not rows.
  const inRange = <QB extends SelectQueryBuilder<Database, 'tasks', object>>(query: QB): QB => {
    let q = query.where('project_id', '=', projectId).where('delete_requested', '=', 0);
    // Whole-second granularity: a task created at 12.7 s is inside to=12 (clients send floor(now)).
    if (range.from !== undefined) q = q.where('created_at', '>=', range.from);
    if (range.to !== undefined) q = q.where('created_at', '<', range.to + 1);
    if (range.nameContains !== undefined && range.nameContains !== '') q = q.where(dialect.containsText('name', range.nameContains));
    return q as QB;
  };
  const { after } = range;
  const offset = Math.min(range.offset ?? 0, MAX_OFFSET);
  // One more than the page: whether another page follows.
  const limit = range.limit + 1;
  const newestFirst = (status?: TaskStatus) => {
    let q = inRange(db.selectFrom('tasks').select(['id', 'created_at']));
    if (status !== undefined) q = q.where('status', '=', status);
    // A row-value comparison: both databases turn it into one range of the index (an OR of the two cases made
    // PostgreSQL read every earlier entry and filter them).
    if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc');
  };
  let page;
  if (statuses === undefined || statuses.length === 1) {
    page = newestFirst(statuses?.[0]).limit(limit).offset(offset);
  } else {
    // Several states: each state's newest tasks are a range of tasks_project_status, and the page is the newest of
    // those. (status IN (...) would make both databases sort every task in those states, or read the whole list.)
    const arms = statuses.map((status, i) =>
      db
        .selectFrom(
          newestFirst(status)
            .limit(offset + limit)
            .as(`s${i}`),
        )
        .select(['id', 'created_at']),
    );
    const merged = arms.slice(1).reduce((union, arm) => union.unionAll(arm), arms[0]!);
    page = db.selectFrom(merged.as('states')).select(['id', 'created_at']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset);
  }
  const ids = (await page.execute()).map((r) => r.id);
  const more = ids.length > range.limit;
  if (more) ids.pop();
  return { ids, more, total: await countTasks(db, ids.length, more, inRange, statuses, range) };
}

/** How many tasks the whole range of a page holds (see listTasks), or undefined when more than `range.countUpTo`. */
async function countTasks(
  db: Kysely<Database>,
  onPage: number,
  more: boolean,
  inRange: <QB extends SelectQueryBuilder<Database, 'tasks', object>>(query: QB) => QB,
  statuses: TaskStatus[] | undefined,
  range: TaskRange,
): Promise<number | undefined> {
  // The first page of a range that fits on it holds all of it.
  if (!more && range.after === undefined && (range.offset ?? 0) === 0) return onPage;
  let matching = inRange(db.selectFrom('tasks'));
  if (statuses !== undefined) matching = matching.where('status', 'in', statuses);
  const cap = range.countUpTo;
  const count =
    cap === undefined
      ? matching.select((eb) => eb.fn.countAll<number>().as('n'))
      : db
          .selectFrom(
            matching
              .select('id')
              .limit(cap + 1)
              .as('matching'),
          )
          .select((eb) => eb.fn.countAll<number>().as('n'));
  const n = Number((await count.executeTakeFirstOrThrow()).n);
  return cap !== undefined && n > cap ? undefined : n;
}
