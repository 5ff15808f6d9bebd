/**
 * What a decision asks the engine to do besides changing state (engine/effects.ts carries these out). Each is a
 * plain value naming its job or task, so that a rule can be tested by what it asks for, and a new kind is a new
 * member here and a new case there, which the compiler asks for.
 */

/**
 * Why a job's run is aborted: 'stop' (the task was stopped or deleted), 'fail-fast' (another job of the task
 * failed), 'shutdown' (its worker shuts down: it runs again wherever the task goes next), 'lost' (the worker no
 * longer drives the task: whatever the run comes to is not recorded).
 */
export type KillReason = 'stop' | 'fail-fast' | 'shutdown' | 'lost';

export type Effect =
  /** Abort a job that runs (or is being started, or looked up in the cache) on this worker. */
  | { kind: 'kill'; jobId: string; because: KillReason }
  /** A job the worker was starting did not start after all: back to the queue as it was (its attempt taken back). */
  | { kind: 'not-started'; jobId: string }
  /** A queued job may start from `until` (unix seconds; null: at once); the task is looked at again then. */
  | { kind: 'hold'; jobId: string; until: number | null }
  /** Look at the task again at `at` (unix seconds), though nothing else happens to it. */
  | { kind: 'wake'; at: number }
  /**
   * A queued deferred job the worker was resolving goes back to the queue, as what it resolved into (a run), or as it
   * was (its worker shuts down): its attempt is not counted.
   */
  | { kind: 'ready'; jobId: string }
  /** The jobs a deferred job's expansion added have ended (or there were none): gather their outputs into its own. */
  | { kind: 'gather'; jobId: string }
  /** Follow a job an earlier owner started, through the executor's handle of it, instead of starting it. */
  | { kind: 'adopt'; jobId: string; handle: string }
  /** Delete the working directories of these nodes' jobs, once the decision's changes are written. */
  | { kind: 'remove-intermediates'; nodeIds: readonly string[] }
  /** Give up the task's lease with the next write: nothing of it runs here and it needs nothing more. */
  | { kind: 'release' }
  /** Remove the task's files, then its rows (a DELETE). */
  | { kind: 'remove-task' }
  /** Tell the worker's log (what an operator should know about the decision). */
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; message: string; fields: Record<string, unknown> };
