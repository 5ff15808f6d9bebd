import { sql, type Kysely } from 'kysely';

// Work is claimed through the store (docs/operating.md, "Workers"): a worker owns a task while it holds its lease
// (owner, expiry in the database's clock), renewed by heartbeat; another worker may take the task over once the
// lease has expired. Stop and delete reach the owner as flags on the task. A job whose process can outlive its
// worker (a Slurm job, a container) records the executor's handle for it, so that a new owner adopts it instead of
// running it again. The per-job lease columns of 0002 were never used: leases are per task.

const ACTIVE = sql<boolean>`status in ('scheduled', 'queued', 'running', 'stopping')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('owner', 'varchar(128)').execute();
  await db.schema.alterTable('tasks').addColumn('lease_expires_at', 'double precision').execute();
  await db.schema
    .alterTable('tasks')
    .addColumn('delete_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // What a worker looks for when it has room: unowned unfinished tasks, oldest first. Partial, so that its size
  // is the backlog, not the history.
  await db.schema
    .createIndex('tasks_claimable')
    .on('tasks')
    .column('created_at')
    .where(sql<boolean>`${ACTIVE} and owner is null`)
    .execute();
  // What a worker holds (heartbeats, flags), and leases that expired (take-over).
  await db.schema
    .createIndex('tasks_owner')
    .on('tasks')
    .columns(['owner', 'lease_expires_at'])
    .where(sql<boolean>`owner is not null`)
    .execute();

  // Task lists page by (created_at, id), newest first, over the tasks not being deleted: the index holds all a page's
  // query reads, so that a page (by keyset cursor or by offset) and the list's count are index ranges, not row reads.
  await db.schema.dropIndex('tasks_project_created').execute();
  await db.schema
    .createIndex('tasks_project_created_id')
    .on('tasks')
    .columns(['project_id', 'created_at', 'id'])
    .where(sql<boolean>`delete_requested = 0`)
    .execute();
  // Nothing looks tasks up by status alone any more (workers claim through tasks_claimable); left in place, it misleads
  // SQLite's planner into sorting the whole backlog for every claim.
  await db.schema.dropIndex('tasks_status').execute();

  await db.schema.alterTable('jobs').addColumn('external_id', 'varchar(256)').execute();
  await db.schema.alterTable('jobs').dropColumn('lease_owner').execute();
  await db.schema.alterTable('jobs').dropColumn('lease_expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('lease_owner', 'varchar(64)').execute();
  await db.schema.alterTable('jobs').addColumn('lease_expires_at', 'double precision').execute();
  await db.schema.alterTable('jobs').dropColumn('external_id').execute();
  await db.schema.dropIndex('tasks_project_created_id').execute();
  await db.schema.createIndex('tasks_project_created').on('tasks').columns(['project_id', 'created_at']).execute();
  await db.schema.createIndex('tasks_status').on('tasks').column('status').execute();
  await db.schema.dropIndex('tasks_owner').execute();
  await db.schema.dropIndex('tasks_claimable').execute();
  for (const column of ['delete_requested', 'lease_expires_at', 'owner']) await db.schema.alterTable('tasks').dropColumn(column).execute();
}
