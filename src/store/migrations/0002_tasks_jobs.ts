import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../dialect.js';

// Tasks, their jobs, the log of every state transition, and server settings (the secret that
// signs log URLs, shared by every replica).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tasks')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('workflow_id', 'varchar(24)', (c) => c.notNull())
    .addColumn('workflow_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('workflow_version', 'integer', (c) => c.notNull())
    .addColumn('user_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('schedule_at', 'double precision')
    .addColumn('stop_requested', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addColumn('started_at', 'double precision')
    .addColumn('ended_at', 'double precision')
    .addColumn('modified_at', 'double precision', (c) => c.notNull())
    .addUniqueConstraint('tasks_project_name', ['project_id', 'name'])
    .execute();
  await db.schema.createIndex('tasks_project_created').on('tasks').columns(['project_id', 'created_at']).execute();
  await db.schema.createIndex('tasks_status').on('tasks').column('status').execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'varchar(300)', (c) => c.primaryKey())
    .addColumn('task_id', 'varchar(24)', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('node_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('command', 'text', (c) => c.notNull())
    .addColumn('spec', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('exit_code', 'integer')
    .addColumn('cpu', 'integer', (c) => c.notNull())
    .addColumn('mem_mb', 'integer', (c) => c.notNull())
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_expires_at', 'double precision')
    .addColumn('started_at', 'double precision')
    .addColumn('ended_at', 'double precision')
    .addColumn('modified_at', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_task').on('jobs').column('task_id').execute();

  await db.schema
    .createTable('task_events')
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('task_id', 'varchar(24)', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('job_id', 'varchar(300)')
    .addColumn('from_status', 'varchar(16)')
    .addColumn('to_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('at', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_events_task').on('task_events').column('task_id').execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['settings', 'task_events', 'jobs', 'tasks']) await db.schema.dropTable(table).execute();
}
