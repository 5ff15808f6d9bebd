import type { EvaluationRequest, ExpressionEvaluator, Json } from '../../domain/cwl/expressions/index.js';
import { JavaScriptError } from '../../domain/cwl/expressions/index.js';
import { sandboxSettings, type SandboxLimits, type SandboxOptions, type SandboxSettings } from './limits.js';
import type { EvaluationJob, Outcome } from './protocol.js';
import { SandboxWorker } from './sandbox-worker.js';
import { stringifyExactJson } from '../../contract/exact-json.js';

/**
 * The engine's ExpressionEvaluator: CWL JavaScript in QuickJS (WebAssembly) on a small pool of worker threads.
 * Workers start when an evaluation needs one and never hold the process open while idle; the engine calls
 * close() on shutdown. Requests wait in one queue, in order, for the next free worker.
 */

interface Queued {
  job: EvaluationJob;
  resolve: (outcome: Outcome) => void;
  reject: (error: Error) => void;
}

export class JavaScriptSandbox implements ExpressionEvaluator {
  private readonly settings: SandboxSettings;
  private readonly workers = new Set<SandboxWorker>();
  private readonly queue: Queued[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: SandboxOptions = {}) {
    this.settings = sandboxSettings(options);
  }

  get limits(): Readonly<SandboxLimits> {
    return this.settings.limits;
  }

  async evaluate(request: EvaluationRequest): Promise<Json> {
    if (this.closed) throw new Error('the JavaScript sandbox is closed');
    const job: EvaluationJob = {
      id: this.nextId++,
      kind: request.kind,
      code: request.code,
      contextJson: contextJson(request),
      expressionLib: [...request.expressionLib],
    };
    const outcome = await new Promise<Outcome>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
    if (!outcome.ok) throw new JavaScriptError(outcome.message, outcome.limit);
    return JSON.parse(outcome.json) as Json;
  }

  /** Stops every worker; queued and running evaluations are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const queued of this.queue.splice(0)) queued.reject(new Error('the JavaScript sandbox was closed'));
    const workers = [...this.workers];
    this.workers.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private pump(): void {
    for (const worker of this.workers) {
      if (this.queue.length === 0) return;
      if (worker.state === 'idle') this.dispatch(worker, this.queue.shift() as Queued);
    }
    const starting = [...this.workers].filter((worker) => worker.state === 'starting').length;
    const wanted = Math.min(this.queue.length - starting, this.settings.workers - this.workers.size);
    for (let i = 0; i < wanted; i++) this.start();
  }

  private start(): void {
    const worker = new SandboxWorker(this.settings, (gone) => this.forget(gone));
    this.workers.add(worker);
    worker.started.then(
      () => this.pump(),
      (error: Error) => {
        this.workers.delete(worker);
        // With no worker left that could take them, the waiting evaluations fail now rather than wait forever.
        if (this.workers.size > 0) return;
        const failure = new Error(`the JavaScript sandbox could not start: ${error.message}`);
        for (const queued of this.queue.splice(0)) queued.reject(failure);
      },
    );
  }

  private dispatch(worker: SandboxWorker, queued: Queued): void {
    worker
      .run(queued.job)
      .then(queued.resolve, queued.reject)
      .finally(() => {
        if (worker.retired) {
          this.workers.delete(worker);
          void worker.terminate();
        }
        if (!this.closed) this.pump();
      });
  }

  private forget(worker: SandboxWorker): void {
    this.workers.delete(worker);
    if (!this.closed) this.pump();
  }
}

/** The context as JSON text; values too deeply nested for JSON.stringify (about 4000 levels) fail the expression. */
function contextJson(request: EvaluationRequest): string {
  const { inputs, self, runtime } = request.context;
  try {
    // An integer beyond 2^53 goes in as its digits, which JavaScript reads as the nearest double (as cwltool's Node does).
    return stringifyExactJson({ inputs, self, runtime });
  } catch (error) {
    throw new JavaScriptError(`inputs, self and runtime cannot be given to the expression: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The sandbox with defaults: a 5 s time limit, 256 MiB of memory and a 512 KiB stack per evaluation, two workers. */
export const createJavaScriptSandbox = (options: SandboxOptions = {}): JavaScriptSandbox => new JavaScriptSandbox(options);
