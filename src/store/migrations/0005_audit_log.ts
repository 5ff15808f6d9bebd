import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../dialect.js';

// Who changed what (docs/operating.md, "Audit log"): one row per write the API or `gdflow admin` was asked to make,
// whether it was made or refused. Rows are only ever inserted; the id orders them as they were committed.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('at', 'double precision', (c) => c.notNull())
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
    // Who: the account and key that signed the request; null for `gdflow admin`, which acts as the operator.
    .addColumn('actor_account', 'varchar(128)')
    .addColumn('actor_key_id', 'varchar(64)')
    .addColumn('actor_user', 'varchar(128)', (c) => c.notNull())
    // What: the operation and the resource, and the account that owns it (the one `--account` also finds).
    .addColumn('account', 'varchar(128)', (c) => c.notNull())
    .addColumn('operation', 'varchar(64)', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    // 'ok', or the error code of the refusal, with its reason.
    .addColumn('outcome', 'varchar(64)', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_log_actor_at').on('audit_log').columns(['actor_account', 'at']).execute();
  await db.schema.createIndex('audit_log_account_at').on('audit_log').columns(['account', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
