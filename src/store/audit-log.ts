import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { AuditEntry, AuditQuery, AuditRecord } from './store.js';

/** The audit log's SQL (migration 0005), the same on both backends. */

/** Longest reason kept: refusals quote what they were sent, which may be large. */
const MAX_REASON = 1000;
const MAX_TARGET = 1000;

export async function insertAudit(db: Kysely<Database>, entry: AuditEntry, at: number): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at,
      request_id: entry.requestId.slice(0, 64),
      actor_account: entry.actorAccount,
      actor_key_id: entry.actorKeyId,
      actor_user: entry.actorUser.slice(0, 128),
      account: entry.account.slice(0, 128),
      operation: entry.operation.slice(0, 64),
      target: entry.target.slice(0, MAX_TARGET),
      outcome: entry.outcome.slice(0, 64),
      reason: entry.reason.slice(0, MAX_REASON),
      client_address: entry.clientAddress?.slice(0, 64) ?? null,
    })
    .execute();
}

export async function selectAudit(db: Kysely<Database>, query: AuditQuery): Promise<AuditRecord[]> {
  let select = db.selectFrom('audit_log').selectAll();
  const { account, since } = query;
  if (account !== undefined) select = select.where((eb) => eb.or([eb('actor_account', '=', account), eb('account', '=', account)]));
  if (since !== undefined) select = select.where('at', '>=', since);
  // The newest `limit`, then turned oldest first: a log reads top to bottom.
  const rows = await select
    .orderBy('id', 'desc')
    .limit(query.limit ?? 1000)
    .execute();
  return rows.reverse().map((row) => ({
    id: Number(row.id),
    at: row.at,
    requestId: row.request_id,
    actorAccount: row.actor_account,
    actorKeyId: row.actor_key_id,
    actorUser: row.actor_user,
    account: row.account,
    operation: row.operation,
    target: row.target,
    outcome: row.outcome,
    reason: row.reason,
    clientAddress: row.client_address,
  }));
}
