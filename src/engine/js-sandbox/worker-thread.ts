import { parentPort, workerData } from 'node:worker_threads';
import type { SandboxLimits } from './limits.js';
import type { EvaluationJob, WorkerReply } from './protocol.js';
import { evaluateInQuickJs, prepareRuntime, type PreparedRuntime } from './quickjs-evaluation.js';
import { loadQuickJs, type LoadedQuickJs } from './quickjs-module.js';

/**
 * A sandbox worker thread: it loads QuickJS (WebAssembly) once and evaluates one job at a time, so that code that
 * spins only ever holds this thread, never the server's event loop.
 */

const port = parentPort;
if (port === null) throw new Error('worker-thread.js runs as a worker thread');
const limits = workerData as SandboxLimits;
const reply = (message: WorkerReply): void => port.postMessage(message);

/** Once its WebAssembly memory grew this much (it never shrinks) the worker asks to be replaced, to give it back. */
const recycleAtBytes = Math.min(48 * 1024 * 1024, limits.memoryLimitBytes / 2);

let quickjs: LoadedQuickJs;
try {
  quickjs = await loadQuickJs(limits);
} catch (error) {
  reply({ type: 'fatal', message: `QuickJS could not be loaded: ${error instanceof Error ? error.message : String(error)}` });
  process.exit(1);
}

let prepared: PreparedRuntime | undefined = prepareRuntime(quickjs.module, limits);

port.on('message', (job: EvaluationJob) => {
  const runtime = prepared ?? prepareRuntime(quickjs.module, limits);
  prepared = undefined;
  const { outcome, damaged, dispose } = evaluateInQuickJs(quickjs, runtime, job, limits);
  const recycle = damaged || quickjs.grownBytes() > recycleAtBytes;
  reply({ type: 'outcome', id: job.id, outcome, recycle });
  if (recycle) return;
  // Freeing this runtime and making the next happen after the reply, while the caller goes on.
  setImmediate(() => {
    dispose();
    prepared ??= prepareRuntime(quickjs.module, limits);
  });
});

reply({ type: 'ready' });
