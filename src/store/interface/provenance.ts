/** Where stored data items came from, and the part of the Store interface that reads it (tasks' writes record it). */

import type { TaskStatus } from '../../contract/states.js';

/**
 * Where a stored data item came from (docs/data.md, "Provenance"): the task, the job that wrote the file and the store
 * step that copied it, with the item's size and modification time as it was stored. It stands for the item only
 * while the item still has them (an upload over the item or its deletion writes nothing here).
 */
export interface DataProvenance {
  account: string;
  /** The item's path in the account (`/results/x.bam`). */
  path: string;
  taskId: string;
  taskName: string;
  /** The job that wrote the file and its node; null when not known. */
  jobId: string | null;
  nodeId: string | null;
  storeJobId: string;
  storeNodeId: string;
  size: number;
  mtimeMs: number;
  /** Seconds since the epoch. */
  storedAt: number;
}

export interface DataProvenanceStore {
  /**
   * The recorded provenance of these items of an account (those that have one, in no particular order), each with
   * its task's status now: null when the task was deleted. The caller compares the stamps with the items'.
   */
  getProvenance(account: string, paths: string[]): Promise<Array<DataProvenance & { taskStatus: TaskStatus | null }>>;
}
