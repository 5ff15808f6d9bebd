import type { Kysely } from 'kysely';

// WDL workflows and tools behind GeneDock's wdl/ routes (docs/wdl.md, "The wdl/ routes").
//
// - wdl_workflows: one row per WDL workflow (kind 'workflow') or WDL tool (kind 'tool') of a project; its id is the
//   `id` (`app_id` of a tool) the clients address every version by, and its name is unique per project and kind.
// - wdl_workflow_versions: the versions, each with the document as uploaded: the main `.wdl` text and its file name,
//   and the optional zip of its imports (base64 text: SQLite and PostgreSQL then hold the same bytes, as they hold
//   every JSON document as text), and the input template read from the document when it was checked (JSON). A version
//   has an id of its own: its download links name it.
// - wdl_tasks: which gdflow tasks run a WDL version, what was asked (inputs, output_dir, ...: JSON, which a restart
//   asks again), and the task a restart was made from (`source_id`, the `wdl/tasks/?source_id=` list). No foreign key to the version: a task keeps its document in its plan and outlives
//   the version's deletion.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wdl_workflows')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull().references('projects.id'))
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addUniqueConstraint('wdl_workflows_name', ['project_id', 'kind', 'name'])
    .execute();

  await db.schema
    .createTable('wdl_workflow_versions')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workflow_id', 'varchar(24)', (c) => c.notNull().references('wdl_workflows.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('source_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('dependencies_name', 'varchar(256)')
    .addColumn('dependencies', 'text')
    .addColumn('inputs', 'text', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addColumn('modified_at', 'double precision', (c) => c.notNull())
    .addUniqueConstraint('wdl_workflow_versions_version', ['workflow_id', 'version'])
    .execute();

  await db.schema
    .createTable('wdl_tasks')
    .addColumn('task_id', 'varchar(24)', (c) => c.primaryKey().references('tasks.id').onDelete('cascade'))
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull())
    .addColumn('workflow_id', 'varchar(24)', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('source_id', 'varchar(24)')
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('wdl_tasks_source').on('wdl_tasks').columns(['project_id', 'source_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['wdl_tasks', 'wdl_workflow_versions', 'wdl_workflows']) await db.schema.dropTable(table).execute();
}
