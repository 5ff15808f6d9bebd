/** What a Client is made with and waits with: its options, waitForTask's options and its timeout error. */
import type { CaCertificates } from './trusted-fetch.js';
import type { Job, Task } from './types.js';

export interface ClientOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8080`. */
  endpoint: string;
  accessKeyId: string;
  accessKeySecret: string;
  /** Account whose projects and data are addressed; default: the account of the key (asked once). */
  account?: string;
  /** Project of tools, workflows and tasks; default `default`. */
  project?: string;
  /** Retries of transient failures (connection errors, 5xx); 4xx are never retried. Default 3. */
  retries?: number;
  /** First backoff delay in ms, doubled each retry with full jitter. Default 200. */
  backoffMs?: number;
  /** Per-attempt timeout in ms. Default 60 000. */
  timeoutMs?: number;
  /** Injectable clock for the signed Date header. */
  now?: () => Date;
  /**
   * PEM certificates of a CA to trust for an https:// endpoint besides Node's bundled ones: a server behind a reverse
   * proxy whose certificate a private CA signed (docs/operating.md). Also used for `Log_downloadURL`s.
   */
  ca?: CaCertificates;
  /** A PEM file holding such certificates (read once, when the client is made); with `ca`, both are trusted. */
  caFile?: string;
}

export type DataBody = Buffer | Uint8Array | NodeJS.ReadableStream | ReadableStream<Uint8Array>;

export interface WaitOptions {
  /** Poll interval in ms; default 1000. */
  intervalMs?: number;
  /** Give up (throw) after this many ms; default: never. */
  timeoutMs?: number;
  /** Also read the task's jobs on every poll and pass them to onUpdate. */
  withJobs?: boolean;
  onUpdate?: (task: Task, jobs: Job[] | undefined) => void;
  signal?: AbortSignal;
}

/** waitForTask gave up (its timeoutMs passed) while the task was still going. */
export class TaskWaitTimeout extends Error {
  constructor(
    readonly task: Task,
    timeoutMs: number,
  ) {
    super(`task ${task.task_id} is still ${task.status} after ${timeoutMs} ms`);
    this.name = 'TaskWaitTimeout';
  }
}

/** Wait `ms`, or reject when `signal` aborts (waitForTask's polls). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        // An abort's reason is the Error the caller gave, or the DOMException AbortError that abort() makes.
        reject(signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError'));
      },
      { once: true },
    );
  });
