import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { LoadedQuickJs } from './quickjs-module.js';
import { describeBytes, describeTime, type SandboxLimits } from './limits.js';
import type { EvaluationJob, Outcome } from './protocol.js';

/**
 * One evaluation inside QuickJS. Every evaluation gets a new QuickJS runtime and context, as cwltool gives each
 * one a new Node vm context: nothing an expression does (globals, changed prototypes, expressionLib state) can be
 * seen by the next, whoever's it is. The runtime carries the memory and stack limits and the interrupt handler
 * that enforces the time limit; the worker's WebAssembly memory bounds what it can allocate (quickjs-module.ts).
 * The context holds only ECMAScript's built-ins (QuickJS without its libc: no
 * console, timers, modules, files or network) plus `inputs`, `self` and `runtime`.
 */

export interface PreparedRuntime {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
}

/** A runtime and context ready for one evaluation; workers make the next one while they wait for work. */
export function prepareRuntime(module: QuickJSWASMModule, limits: SandboxLimits): PreparedRuntime {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryLimitBytes);
  runtime.setMaxStackSize(limits.stackLimitBytes);
  return { runtime, context: runtime.newContext() };
}

/**
 * `damaged`: the host threw out of QuickJS (not a JavaScript exception inside it), so its state is unknown.
 * `dispose` frees the runtime; workers call it after sending the outcome, to keep it off the caller's wait.
 */
export interface EvaluationResult {
  outcome: Outcome;
  damaged: boolean;
  readonly dispose: () => void;
}

/** Runs the job in the prepared runtime, which is used up: call `dispose` on the result. */
export function evaluateInQuickJs(quickjs: LoadedQuickJs, prepared: PreparedRuntime, job: EvaluationJob, limits: SandboxLimits): EvaluationResult {
  const { runtime, context } = prepared;
  quickjs.watchMemory();
  const deadline = Date.now() + limits.timeLimitMs;
  let interrupted = false;
  runtime.setInterruptHandler(() => (interrupted ||= Date.now() > deadline));
  const handles: QuickJSHandle[] = [];
  const dispose = (): void => disposeAll(handles, prepared);
  try {
    const run = new Run(context, limits, handles, { interrupted: () => interrupted, memoryRefused: quickjs.memoryRefused });
    return { outcome: run.evaluate(job), damaged: false, dispose };
  } catch (error) {
    return { outcome: hostFailure(error), damaged: true, dispose };
  }
}

/** Sets the globals and keeps a JSON.stringify the document's code cannot replace before the result is written. */
const SETUP = `(function (text) {
  var context = JSON.parse(text);
  globalThis.inputs = context.inputs;
  globalThis.self = context.self === undefined ? null : context.self;
  globalThis.runtime = context.runtime;
  var stringify = JSON.stringify;
  return function (value) { return stringify(value); };
})`;

/** `$(code)` is an expression, `${code}` a function body; both run as `(function () { ... })()` in strict mode. */
const wrapped = (job: EvaluationJob): string =>
  job.kind === 'expression' ? `(function () { return (\n${job.code}\n); })()` : `(function () {\n${job.code}\n})()`;

type Step = { value: QuickJSHandle } | { failure: Outcome };

/** What the host saw while the code ran: the interrupt handler stopped it, the memory refused to grow. */
interface Watch {
  interrupted(): boolean;
  memoryRefused(): boolean;
}

class Run {
  constructor(
    private readonly context: QuickJSContext,
    private readonly limits: SandboxLimits,
    private readonly handles: QuickJSHandle[],
    private readonly watch: Watch,
  ) {}

  evaluate(job: EvaluationJob): Outcome {
    const ctx = this.context;
    const setup = this.step(ctx.evalCode(SETUP, 'cwl-setup.js', { strict: true }), 'setting up');
    if ('failure' in setup) return setup.failure;
    const text = this.keep(ctx.newString(job.contextJson));
    const toJson = this.step(ctx.callFunction(setup.value, ctx.undefined, text), 'reading inputs, self and runtime');
    if ('failure' in toJson) return toJson.failure;
    for (const [index, library] of job.expressionLib.entries()) {
      const loaded = this.step(ctx.evalCode(library, `expressionLib[${index}]`, { strict: true }), `expressionLib[${index}]`);
      if ('failure' in loaded) return loaded.failure;
    }
    const result = this.step(ctx.evalCode(wrapped(job), 'expression', { strict: true }), '');
    if ('failure' in result) return result.failure;
    return this.json(result.value, toJson.value);
  }

  /** The value as JSON text: undefined is null, functions and symbols are errors, the rest is JSON.stringify's. */
  private json(value: QuickJSHandle, toJson: QuickJSHandle): Outcome {
    const ctx = this.context;
    const type = ctx.typeof(value);
    if (type === 'undefined') return { ok: true, json: 'null' };
    if (type === 'function' || type === 'symbol' || type === 'bigint') {
      return { ok: false, message: `the expression returned a ${type}, which is not a JSON value` };
    }
    const text = this.step(ctx.callFunction(toJson, ctx.undefined, value), 'writing its value as JSON');
    if ('failure' in text) return text.failure;
    if (ctx.typeof(text.value) !== 'string') return { ok: true, json: 'null' }; // a toJSON() that returned undefined
    const length = ctx.getNumber(this.keep(ctx.getProp(text.value, 'length')));
    if (length > this.limits.resultLimitChars) {
      const limit = this.limits.resultLimitChars;
      return { ok: false, limit: 'result', message: `the expression's value is ${length} characters of JSON, more than the ${limit} allowed` };
    }
    return { ok: true, json: ctx.getString(text.value) };
  }

  private step(result: ReturnType<QuickJSContext['evalCode']>, where: string): Step {
    if ('error' in result && result.error !== undefined) return { failure: this.failure(this.keep(result.error), where) };
    return { value: this.keep(result.value) };
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  private failure(error: QuickJSHandle, where: string): Outcome {
    const prefix = where === '' ? '' : `${where}: `;
    if (this.watch.interrupted()) {
      return { ok: false, limit: 'time', message: `the expression exceeded its ${describeTime(this.limits.timeLimitMs)} time limit` };
    }
    const { name, message } = safeDump(this.context, error);
    // Out of memory, QuickJS may fail to make its error object too and throw something else (an empty string).
    if (message === 'out of memory' || this.watch.memoryRefused()) {
      return { ok: false, limit: 'memory', message: `${prefix}the expression ran out of its ${describeBytes(this.limits.memoryLimitBytes)} memory limit` };
    }
    if (message === 'stack overflow') {
      const limit = describeBytes(this.limits.stackLimitBytes);
      return { ok: false, limit: 'stack', message: `${prefix}the expression recursed too deep for its ${limit} stack (${name}: stack overflow)` };
    }
    return { ok: false, message: `${prefix}${name === undefined ? `uncaught exception ${message}` : `${name}: ${message}`}` };
  }
}

/** What was thrown: an error's name and message, or any other value as JSON text (`throw "no input"`). */
function safeDump(context: QuickJSContext, error: QuickJSHandle): { name?: string; message: string } {
  let value: unknown;
  try {
    value = context.dump(error);
  } catch {
    return { message: '(a value that could not be read)' };
  }
  if (typeof value === 'object' && value !== null && 'message' in value && typeof value.message === 'string') {
    const name = 'name' in value && typeof value.name === 'string' ? value.name : 'Error';
    return { name, message: value.message };
  }
  try {
    return { message: JSON.stringify(value) ?? String(value) };
  } catch {
    return { message: String(value) };
  }
}

function hostFailure(error: unknown): Outcome {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (text.includes('Maximum call stack size exceeded')) {
    return { ok: false, limit: 'stack', message: `the expression recursed too deep for the sandbox (${text})` };
  }
  return { ok: false, message: `the JavaScript sandbox failed while running the expression (${text})` };
}

function disposeAll(handles: QuickJSHandle[], prepared: PreparedRuntime): void {
  try {
    for (const handle of handles.reverse()) if (handle.alive) handle.dispose();
    prepared.context.dispose();
    prepared.runtime.dispose();
  } catch {
    // Only after the host threw out of QuickJS; the worker is replaced then (the result said `damaged`).
  }
}
