/**
 * The engine's public entry: what the server (server/start.ts) starts and hands to the API. Everything else in
 * engine/ is its own business; test/structure checks that the server imports nothing of it but this file.
 */
export { createExecutor, type Executor, type ExecutorKind } from './executors/index.js';
export { FileJobLogs, type JobLogs, type LogSnapshot, type LogStream } from './job-logs.js';
export { Layout, removeTaskFiles } from './layout.js';
export { tesFiles } from './tes-files.js';
export { RemoteFetch } from './remote-fetch.js';
export { Worker, type WorkerOptions } from './worker.js';
export { defaultWorkerId } from './worker-id.js';
export { CallCache } from './call-cache.js';
export { createCwlResolver, DataStoreLocations } from './cwl/index.js';
export { createWdlResolver } from './wdl/index.js';
export { createJavaScriptSandbox, type JavaScriptSandbox } from './js-sandbox/index.js';
