import type { Kysely } from 'kysely';

// Written with Kysely's schema builder only, so the same migration runs on SQLite and PostgreSQL.
// Timestamps are `double precision` (seconds with fraction), JSON documents are `text`.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(24)', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addUniqueConstraint('projects_account_name', ['account_id', 'name'])
    .execute();

  await db.schema
    .createTable('access_keys')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('secret', 'varchar(128)', (c) => c.notNull())
    .addColumn('account_id', 'varchar(24)', (c) => c.notNull().references('accounts.id'))
    .addColumn('user_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addColumn('revoked_at', 'double precision')
    .execute();

  await db.schema
    .createTable('tools')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('visibility', 'varchar(16)', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('configs', 'text')
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addColumn('modified_at', 'double precision', (c) => c.notNull())
    // Versions are unique per name: concurrent CreateTool calls cannot both take the same one.
    .addUniqueConstraint('tools_project_name_version', ['project_id', 'name', 'version'])
    .execute();

  await db.schema
    .createTable('workflows')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('visibility', 'varchar(16)', (c) => c.notNull())
    .addColumn('configs', 'text')
    .addColumn('run_template', 'text')
    .addColumn('created_at', 'double precision', (c) => c.notNull())
    .addColumn('modified_at', 'double precision', (c) => c.notNull())
    .addUniqueConstraint('workflows_project_name_version', ['project_id', 'name', 'version'])
    .execute();

  await db.schema
    .createTable('workflow_tools')
    .addColumn('workflow_id', 'varchar(24)', (c) => c.notNull().references('workflows.id').onDelete('cascade'))
    // RESTRICT: the database itself refuses to delete a tool version a workflow pins.
    .addColumn('tool_id', 'varchar(24)', (c) => c.notNull().references('tools.id').onDelete('restrict'))
    .addPrimaryKeyConstraint('workflow_tools_pk', ['workflow_id', 'tool_id'])
    .execute();
  await db.schema.createIndex('workflow_tools_tool').on('workflow_tools').column('tool_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['workflow_tools', 'workflows', 'tools', 'access_keys', 'projects', 'accounts']) {
    await db.schema.dropTable(table).execute();
  }
}
