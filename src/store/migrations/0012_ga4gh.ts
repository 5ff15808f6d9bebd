import type { Kysely } from 'kysely';

// The GA4GH APIs (docs/ga4gh.md).
//
// - access_tokens: bearer tokens made by `gdflow admin create-token`. Only a SHA-256 of the token's secret is kept (the
//   secret is 32 random bytes: a slow hash would add nothing but cost to every request); the token's id is its public
//   half, by which it is looked up. A token may be limited to one project of its account; it expires, and it can be
//   revoked, which every replica notices as it notices a revoked access key (the read cache's generation).
// - tes_tasks: which gdflow tasks are TES tasks, with their TES name (free text, not unique: the gdflow task's own name
//   is made unique from it) and the index a TES list pages through, newest first.
// - tes_task_tags: a TES task's tags, for the tag_key/tag_value filter of the list.
//
// Numbered 0012: 0010 and 0011 are other branches' (renumber at merge if needed).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('access_tokens')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('secret_sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('account_id', 'varchar(24)', (c) => c.notNull().references('accounts.id'))
    .addColumn('project_name', 'varchar(128)')
    .addColumn('user_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addColumn('expires_at', 'double precision', (c) => c.notNull())
    .addColumn('revoked_at', 'double precision')
    .execute();
  await db.schema.createIndex('access_tokens_account').on('access_tokens').column('account_id').execute();

  await db.schema
    .createTable('tes_tasks')
    .addColumn('task_id', 'varchar(24)', (c) => c.primaryKey().references('tasks.id').onDelete('cascade'))
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tes_tasks_project_created').on('tes_tasks').columns(['project_id', 'created_at', 'task_id']).execute();

  await db.schema
    .createTable('tes_task_tags')
    .addColumn('task_id', 'varchar(24)', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('key', 'varchar(1024)', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tes_task_tags_pk', ['task_id', 'key'])
    .execute();
  await db.schema.createIndex('tes_task_tags_key').on('tes_task_tags').columns(['key', 'task_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['tes_task_tags', 'tes_tasks', 'access_tokens']) await db.schema.dropTable(table).execute();
}
