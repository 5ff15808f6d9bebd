import type { Kysely } from 'kysely';

// Where a stored data item came from (docs/data.md, "Provenance"): a store step records, for each item it copies
// into the data store, the task, the job that wrote the file and the store step itself, with the item's size and
// modification time as stored. The row stands for the item only while the item still has that size and time: an
// upload over it, or a deletion, needs no write here, and a later store to the same name replaces the row.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('data_provenance')
    .addColumn('account', 'varchar(128)', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    // No foreign key to tasks: the item outlives its task (stored outputs stay when a task is deleted).
    .addColumn('task_id', 'varchar(24)', (c) => c.notNull())
    .addColumn('task_name', 'varchar(128)', (c) => c.notNull())
    // The job that wrote the file (a tool job, or the load step of an item stored again as it was); null if unknown.
    .addColumn('job_id', 'varchar(300)')
    .addColumn('node_id', 'varchar(128)')
    .addColumn('store_job_id', 'varchar(300)', (c) => c.notNull())
    .addColumn('store_node_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('mtime_ms', 'double precision', (c) => c.notNull())
    .addColumn('stored_at', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_provenance_pk', ['account', 'path'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('data_provenance').execute();
}
