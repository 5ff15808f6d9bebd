/** The audit log's records and the part of the Store interface that writes and reads them. */

/** One write asked of the API or of `gdflow admin`, made or refused (docs/operating.md, "Audit log"). */
export interface AuditEntry {
  /** The request's id (`x-gd-requestid`), or the id `gdflow admin` made up for its command. */
  requestId: string;
  /** Who: the account and access key that signed the request; null for `gdflow admin` (the operator). */
  actorAccount: string | null;
  actorKeyId: string | null;
  /** The key's user name, or the operating-system user who ran `gdflow admin`. */
  actorUser: string;
  /** The account whose resource the write is about. */
  account: string;
  /** What: CreateTool, PutWorkflow, StopTask, PutData, CreateKey, ... */
  operation: string;
  /** The resource: `account/project/tool:version`, a task id, `account:/path`, a key id, or the request path of a refusal. */
  target: string;
  /** 'ok', or the error code the write was refused with. */
  outcome: string;
  /** Why it was refused (empty when it was made). */
  reason: string;
  /** The client's address as the server saw it (behind a trusted proxy, the one it forwarded); none for `gdflow admin`. */
  clientAddress?: string | null;
}

export interface AuditRecord extends AuditEntry {
  id: number;
  clientAddress: string | null;
  /** Seconds since the epoch (the writing process's clock). */
  at: number;
}

export interface AuditQuery {
  /** Entries whose actor or subject is this account. */
  account?: string;
  /** Entries at or after this time (seconds since the epoch). */
  since?: number;
  /** At most this many, the newest kept (default 1000). */
  limit?: number;
}

export interface AuditStore {
  /** Add an entry; inside a transaction, it commits (or not) with the write it records. */
  recordAudit(entry: AuditEntry): Promise<void>;
  /** Entries oldest first. */
  listAudit(query: AuditQuery): Promise<AuditRecord[]>;
}
