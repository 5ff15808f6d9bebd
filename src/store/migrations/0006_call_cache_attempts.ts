import type { Kysely } from 'kysely';

// Retries and call caching (docs/tasks.md, "Retries" and "Call caching"). A job keeps every attempt that ended
// (a JSON list: the attempts are read and written with their job, never on their own), its call-cache key with
// what the key was made of (for `gdflow task explain`), the job it reused when it was a cache hit, and the size and
// modification time of its outputs (a later hit needs them unchanged). Stored data items get their content hash
// once, kept while their size and modification time stay the same.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('attempts', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  // A sha256 in hex is 64 characters.
  await db.schema.alterTable('jobs').addColumn('cache_key', 'varchar(64)').execute();
  await db.schema.alterTable('jobs').addColumn('cache_parts', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('cached_from', 'varchar(200)').execute();
  // hit, miss, or off (a key was recorded but not looked up: caching was off for the task or on the server).
  await db.schema.alterTable('jobs').addColumn('cache_lookup', 'varchar(16)').execute();
  await db.schema.alterTable('jobs').addColumn('output_stamps', 'text').execute();
  // By key, newest first: identical jobs (many samples through the same step) share a key, and a lookup reads a few.
  await db.schema.createIndex('jobs_cache_key').on('jobs').columns(['cache_key', 'ended_at']).execute();
  // For explain (a tool's latest jobs): on the name alone, which never changes, so that a job's end does not touch it.
  await db.schema.createIndex('jobs_name').on('jobs').column('name').execute();
  await db.schema
    .createTable('content_hashes')
    .addColumn('account', 'varchar(128)', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('mtime_ms', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('content_hashes_pk', ['account', 'path'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('content_hashes').execute();
  await db.schema.dropIndex('jobs_name').execute();
  await db.schema.dropIndex('jobs_cache_key').execute();
  for (const column of ['output_stamps', 'cache_lookup', 'cached_from', 'cache_parts', 'cache_key', 'attempts'])
    await db.schema.alterTable('jobs').dropColumn(column).execute();
}
