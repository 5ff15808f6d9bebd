import { Worker } from 'node:worker_threads';
import { JavaScriptError } from '../../domain/cwl/expressions/index.js';
import { describeTime, nativeStackMb, type SandboxSettings } from './limits.js';
import type { EvaluationJob, Outcome, WorkerReply } from './protocol.js';

/**
 * One worker thread of the sandbox, seen from the main thread. It runs one job at a time under a hard deadline
 * (the time limit plus a grace): a worker that has not answered by then is terminated, whatever it is doing.
 * It holds the process open only while it works (ref'd while starting or busy, unref'd when idle).
 */

const MiB = 1024 * 1024;

type State = 'starting' | 'idle' | 'busy' | 'gone';

interface Running {
  resolve: (outcome: Outcome) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class SandboxWorker {
  private readonly worker: Worker;
  private current: Running | undefined;
  private status: State = 'starting';
  /** Resolves once QuickJS is loaded; rejects if the worker cannot start. */
  readonly started: Promise<void>;
  /** Set when the worker asked to be replaced after its last job. */
  retired = false;

  constructor(
    private readonly settings: SandboxSettings,
    /** Told when the worker stopped by itself or was terminated for missing its deadline. */
    private readonly onGone: (worker: SandboxWorker) => void,
  ) {
    const { limits } = settings;
    this.worker = new Worker(new URL('./worker-thread.js', import.meta.url), {
      workerData: limits,
      env: {}, // nothing in the worker needs the server's environment
      execArgv: [], // nor the server's Node flags (some, like --input-type, would stop the worker from starting)
      resourceLimits: {
        stackSizeMb: nativeStackMb(limits),
        // The V8 heap holds the result's JSON text (two bytes a character at most) and a copy in transit.
        maxOldGenerationSizeMb: 128 + Math.ceil((limits.resultLimitChars * 4) / MiB),
      },
    });
    this.started = new Promise((resolve, reject) => {
      this.worker.once('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') resolve();
        else reject(new Error(reply.type === 'fatal' ? reply.message : `unexpected first message ${reply.type}`));
      });
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`the worker exited with code ${code} while starting`)));
    });
    this.started.then(
      () => {
        if (this.status !== 'starting') return;
        this.status = 'idle';
        this.worker.unref();
        this.worker.on('message', (reply: WorkerReply) => this.onReply(reply));
      },
      () => void this.stop(),
    );
    this.worker.on('error', (error) => this.fail(`its worker thread failed (${error.message})`));
    this.worker.on('exit', (code) => this.fail(`its worker thread exited with code ${code}`));
  }

  get state(): State {
    return this.status;
  }

  run(job: EvaluationJob): Promise<Outcome> {
    if (this.status !== 'idle') return Promise.reject(new Error(`a sandbox worker that is ${this.status} cannot take a job`));
    this.status = 'busy';
    this.worker.ref();
    const deadline = this.settings.limits.timeLimitMs + this.settings.graceMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.missedDeadline(), deadline);
      this.current = { resolve, reject, timer };
      this.worker.postMessage(job);
    });
  }

  /** Stops the thread; a job still running is rejected with a plain Error: not the document's fault. */
  async terminate(): Promise<void> {
    this.settle(new Error('the JavaScript sandbox was closed'));
    await this.stop();
  }

  private onReply(reply: WorkerReply): void {
    if (reply.type !== 'outcome' || this.current === undefined) return;
    const { resolve, timer } = this.current;
    clearTimeout(timer);
    this.current = undefined;
    this.status = 'idle';
    this.worker.unref();
    this.retired = reply.recycle;
    resolve(reply.outcome);
  }

  private missedDeadline(): void {
    const limit = describeTime(this.settings.limits.timeLimitMs);
    this.settle(new JavaScriptError(`the expression exceeded its ${limit} time limit (its worker did not stop and was replaced)`, 'time'));
    void this.stop().then(() => this.onGone(this));
  }

  /** The thread failed or exited on its own: the job it was running fails, as the job is what it was doing. */
  private fail(why: string): void {
    if (this.status === 'gone') return;
    // A worker that dies while starting rejects `started`, and the pool learns of it there.
    const wasStarting = this.status === 'starting';
    this.status = 'gone';
    if (wasStarting) return;
    this.settle(new JavaScriptError(`the JavaScript sandbox stopped while evaluating the expression: ${why}`));
    this.onGone(this);
  }

  private settle(error: Error): void {
    if (this.current === undefined) return;
    clearTimeout(this.current.timer);
    this.current.reject(error);
    this.current = undefined;
  }

  private async stop(): Promise<void> {
    this.status = 'gone';
    await this.worker.terminate();
  }
}
