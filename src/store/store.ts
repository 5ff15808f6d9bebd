/**
 * The store interface: everything the domain and the engine persist goes through it. There is
 * one implementation over Kysely (kysely-store.ts with definition-store.ts) that runs on SQLite
 * (sqlite.ts) and on PostgreSQL (postgres.ts), with a read cache in front (cached-store.ts); the
 * contract suite in test/store/ runs against every backend.
 */

import type { JobStatus, TaskStatus } from '../contract/states.js';
import type { AuditStore } from './interface/audit.js';
import type { AccountStore, TokenStore, ToolStore, WorkflowStore } from './interface/definitions.js';
import type { DataProvenanceStore } from './interface/provenance.js';
import type { CallCacheStore, SettingsStore, WorkEvents } from './interface/records.js';
import type { TaskStore, WorkStore } from './interface/tasks.js';

export type { JobStatus, TaskStatus };
export * from './interface/definitions.js';
export * from './interface/tasks.js';
export * from './interface/audit.js';
export * from './interface/provenance.js';
export * from './interface/records.js';

export interface StoreCapabilities {
  /** Human name of the backend, for logs and `gdflow doctor`. */
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Whether rows can be locked with SELECT ... FOR UPDATE (PostgreSQL), or writes are serial anyway
   * (SQLite: every write transaction takes the database's write lock when it begins).
   */
  readonly rowLocks: boolean;
}

export interface Store
  extends AccountStore, TokenStore, ToolStore, WorkflowStore, TaskStore, WorkStore, SettingsStore, AuditStore, CallCacheStore, DataProvenanceStore {
  readonly capabilities: StoreCapabilities;
  readonly events: WorkEvents;
  /** Run `fn` in one transaction; everything it does through the given store commits or none of it. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
