import type { Kysely } from 'kysely';

// Where a write came from (docs/operating.md, "Audit log"): the client's address as the server saw it, behind a
// trusted reverse proxy the address the proxy forwarded (--trust-proxy). Null for `gdflow admin`, which is run on
// the store's own machine by the operator, and for the rows written before this migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // An IPv6 address with a zone is at most 45 + a zone; 64 leaves room.
  await db.schema.alterTable('audit_log').addColumn('client_address', 'varchar(64)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('client_address').execute();
}
