/** The JavaScript sandbox for CWL expressions: QuickJS in WebAssembly on worker threads, behind ExpressionEvaluator. */
export { JavaScriptSandbox, createJavaScriptSandbox } from './javascript-sandbox.js';
export { DEFAULT_LIMITS, sandboxSettings, type SandboxLimits, type SandboxOptions } from './limits.js';
