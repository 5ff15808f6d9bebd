import type { Json, JsonMap } from './json-value.js';

/** The parameter context of CWL: the global variables every expression sees. */
export interface ExpressionContext {
  /** The input object of the process. */
  inputs: JsonMap;
  /** What the field documents (`self` of outputEval, valueFrom, secondaryFiles ...), null where it says nothing. */
  self: Json;
  /** outdir, tmpdir, cores, ram, outdirSize, tmpdirSize; exitCode where outputs are collected. */
  runtime: JsonMap;
}

/** One piece of JavaScript to run: the code inside `$(...)` (`expression`) or inside `${...}` (`body`). */
export interface EvaluationRequest {
  kind: 'expression' | 'body';
  code: string;
  context: ExpressionContext;
  /** InlineJavascriptRequirement's expressionLib, run in order before the code, in the same global scope. */
  expressionLib: readonly string[];
}

/**
 * Runs JavaScript for the domain, which never learns how (the engine's sandbox runs it in QuickJS). The result
 * is the code's value as JSON: undefined becomes null, NaN and Infinity become null, members that are functions
 * or undefined are left out (JSON.stringify's rules). It rejects with a JavaScriptError when the code throws,
 * reaches a limit or returns a function or symbol; any other rejection is the evaluator's own failure.
 */
export interface ExpressionEvaluator {
  evaluate(request: EvaluationRequest): Promise<Json>;
}
