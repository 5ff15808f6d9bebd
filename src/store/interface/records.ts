/** Call caching, settings and work events: the remaining parts of the Store interface. */

import type { FileHash, Job } from './tasks.js';

/**
 * What call caching keeps (docs/tasks.md, "Call caching"): jobs by their cache key, and the content hashes of
 * stored data items, taken once per item and kept while its size and modification time stay the same.
 */
export interface CallCacheStore {
  /** Succeeded jobs of the account's tasks (not being deleted) with this key, newest first. */
  findCachedJobs(accountName: string, cacheKey: string, limit: number): Promise<Job[]>;
  /**
   * findCachedJobs for many keys in one query: the succeeded jobs of the account's tasks with any of these keys,
   * newest first, at most `limitPerKey` of each key; with `newestTaskWhole`, also every other job with the key of the
   * task of its newest one (a rerun looks there for the job at its own node, domain/tasks/cached-rerun.ts).
   */
  findCachedJobsByKeys(accountName: string, cacheKeys: readonly string[], limitPerKey: number, options?: { newestTaskWhole?: boolean }): Promise<Job[]>;
  /** Jobs of the account's tasks that ran this tool and recorded a cache key, newest first (for explain). */
  keyedJobsOfTool(accountName: string, toolName: string, limit: number): Promise<Job[]>;
  getContentHash(accountName: string, path: string): Promise<FileHash | undefined>;
  putContentHash(accountName: string, path: string, hash: FileHash): Promise<void>;
}

export interface SettingsStore {
  getSetting(key: string): Promise<string | undefined>;
  /** Set the value unless one exists; returns the value that is stored (first writer wins). */
  initSetting(key: string, value: string): Promise<string>;
}

/** Something for workers to act on now (a new task, a stop or delete request). */
export interface WorkEvent {
  kind: 'task' | 'stop' | 'delete';
  taskId: string;
}

/**
 * Wake-ups between processes: PostgreSQL delivers them to every replica (LISTEN/NOTIFY); on SQLite they reach
 * this process only, and workers elsewhere find the work by polling. A lost event only delays work: workers
 * always poll as well.
 */
export interface WorkEvents {
  /** Whether other processes hear what this one publishes. */
  readonly crossProcess: boolean;
  publish(event: WorkEvent): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (event: WorkEvent) => void): () => void;
}
