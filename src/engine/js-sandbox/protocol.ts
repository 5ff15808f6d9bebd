import type { JavaScriptLimit } from '../../domain/cwl/expressions/index.js';

/** Messages between the sandbox pool (main thread) and its worker threads. */

export interface EvaluationJob {
  id: number;
  kind: 'expression' | 'body';
  code: string;
  /** `{"inputs": ..., "self": ..., "runtime": ...}` as JSON text, parsed inside QuickJS. */
  contextJson: string;
  expressionLib: readonly string[];
}

export type Outcome = { ok: true; json: string } | { ok: false; message: string; limit?: JavaScriptLimit };

export type WorkerReply =
  | { type: 'ready' }
  /** The worker could not load QuickJS; it exits after saying so. */
  | { type: 'fatal'; message: string }
  /** `recycle`: the worker should be replaced (its WebAssembly memory grew large, or QuickJS may be damaged). */
  | { type: 'outcome'; id: number; outcome: Outcome; recycle: boolean };
