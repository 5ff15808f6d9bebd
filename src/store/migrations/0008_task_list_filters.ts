import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// Task lists filtered by state or by a part of the name (docs/api.md, "Paging"), as flat as the unfiltered list of
// migration 0003: a page is a range of an index, not a read of every task of the project.
//
// - By state: per project and state, newest first. 0003 dropped the index on the state alone, which no list could use
//   for its order; this one is a range per state, counted from the index alone.
// - By name: a part of a name is not a range of any B-tree. On PostgreSQL a trigram index (pg_trgm, shipped with
//   PostgreSQL's contrib modules and trusted: the database's owner may create it) finds the few tasks a selective
//   text matches; for a text most tasks match, the planner walks the list's own index instead. SQLite has no such
//   index type fit for this (FTS5 would key the index by rowids, which VACUUM may change): there the names ride in the
//   list's indexes, so that a name filter reads index entries only, in list order, and never the rows.

const LISTED = sql<boolean>`delete_requested = 0`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite';
  await db.schema
    .createIndex('tasks_project_status')
    .on('tasks')
    .columns(['project_id', 'status', 'created_at', 'id', ...(sqlite ? ['name'] : [])])
    .where(LISTED)
    .execute();
  if (sqlite) {
    await db.schema.createIndex('tasks_project_created_name').on('tasks').columns(['project_id', 'created_at', 'id', 'name']).where(LISTED).execute();
    return;
  }
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `gdflow needs PostgreSQL's pg_trgm extension (part of PostgreSQL's contrib modules) for the task list's name filter, and ` +
        `could not create it (${detail}): create it as the database's owner or a superuser (CREATE EXTENSION pg_trgm;) and start gdflow again`,
      { cause: error },
    );
  }
  await sql`create index tasks_name_trigrams on tasks using gin (name gin_trgm_ops) where ${LISTED}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The extension stays: other schemas of the database may use it.
  for (const index of dialectOf(db) === 'sqlite' ? ['tasks_project_created_name', 'tasks_project_status'] : ['tasks_name_trigrams', 'tasks_project_status']) {
    await db.schema.dropIndex(index).execute();
  }
}
