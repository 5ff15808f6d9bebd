/**
 * The engine's public entry: what the server (server/start.ts) starts and hands to the API. Everything else in
 * engine/ is its own business; test/structure checks that the server imports nothing of it but this file.
 */
export { Worker, type WorkerOptions } from './worker.js';
export { removeTaskFiles, Layout } from './layout.js';
export { createExecutor, type Executor, type ExecutorKind } from './executors/index.js';
export { FileJobLogs, type JobLogs, type LogSnapshot, type LogStream } from './job-logs.js';
export { defaultWorkerId } from './worker-id.js';
// CWL runs: the resolver of their deferred jobs, the documents it loads, data locations, and the JavaScript sandbox.
export { CwlResolver } from './cwl/resolver.js';
export { LoadedRuns } from './cwl/loaded-runs.js';
export { DataStoreLocations } from './cwl/data-locations.js';
export { createJavaScriptSandbox, type JavaScriptSandbox } from './js-sandbox/index.js';
