/** What a worker is made with (engine/worker.ts): its store, executor and disk, its capacity and its policies. */
import type { DataStore } from '../data/index.js';
import type { RetryPolicy } from '../domain/tools/retry-policy.js';
import type { Store } from '../store/store.js';
import type { JobResolver } from './deferred/resolver.js';
import type { Executor } from './executors/executor.js';
import type { RunResult } from './job-runner.js';
import type { Layout } from './layout.js';
import type { Log } from './log.js';
import type { RemoteFetch } from './remote-fetch.js';

export interface WorkerOptions {
  store: Store;
  dataStore: DataStore;
  executor: Executor;
  layout: Layout;
  /** This worker's name in the store (lease owner); unique among live workers. */
  workerId: string;
  /** CPU slots and memory (MiB) handed out to jobs. */
  cpus: number;
  memoryMb: number;
  jobTimeoutSeconds: number;
  /** How long a lease lasts without renewal (s): a dead worker's tasks are taken over after this. Default 15. */
  leaseSeconds?: number;
  /** How often to look for new work and for stop and delete requests (ms). Default 500. */
  pollIntervalMs?: number;
  /** Most tasks held at once. Default max(16, 4 × cpus). */
  maxTasks?: number;
  /** How many times a job may be found running by a new owner (its worker died) before it is failed. Default 3. */
  maxRestarts?: number;
  /** The retry policy of tools that have none (docs/tasks.md, "Retries"). Default DEFAULT_RETRY_POLICY. */
  retry?: RetryPolicy;
  /** Whether jobs may be satisfied from the call cache (docs/tasks.md, "Call caching"). Default true. */
  callCaching?: boolean;
  /** Whether a task that succeeded loses its intermediate outputs, when the task does not say. Default false. */
  cleanupIntermediates?: boolean;
  log?: Log;
  /** Told of every job this worker ran when it ends, however it ended (for the metrics). */
  onJobEnded?: (result: RunResult) => void;
  /** The resolvers of deferred jobs, by the name their jobs give (docs/tasks.md, "Deferred jobs"): `cwl`. */
  resolvers?: Readonly<Record<string, JobResolver>>;
  /** Whether the executor runs a job that names an image in a container of it (podman, docker, Slurm with podman). */
  containers?: boolean;
  /** What TES tasks' http(s) inputs are fetched through (the operator's --fetch-hosts); absent: none is fetched. */
  remote?: RemoteFetch;
}
