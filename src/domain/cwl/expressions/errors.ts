/** The ways evaluating a CWL expression can fail. Each is a permanent failure of the step that evaluates it. */

/** A string's `$(` or `${` is never closed; the message says where it starts. */
export class ExpressionSyntaxError extends Error {
  constructor(
    readonly text: string,
    readonly position: number,
    message: string,
  ) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

/** One expression of a field could not be evaluated; the message names the expression and the reason. */
export class ExpressionError extends Error {
  constructor(
    /** The expression as written, `$(...)` or `${...}`, shortened when long. */
    readonly expression: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${expression} failed: ${reason}`, options);
    this.name = 'ExpressionError';
  }
}

/** Which limit of the sandbox a JavaScript evaluation reached, if it failed by reaching one. */
export type JavaScriptLimit = 'time' | 'memory' | 'stack' | 'result';

/**
 * JavaScript code threw, reached a limit or returned something that is not JSON. Evaluators reject with this
 * for every failure the code itself causes; any other rejection is the evaluator's own trouble (a closed pool,
 * a worker that could not start) and is not the document's fault.
 */
export class JavaScriptError extends Error {
  constructor(
    message: string,
    readonly limit?: JavaScriptLimit,
  ) {
    super(message);
    this.name = 'JavaScriptError';
  }
}

/** An expression's text for an error message: whole when short, else its start and end. */
export function shortened(source: string, most = 120): string {
  if (source.length <= most) return source;
  const half = Math.floor((most - 5) / 2);
  return `${source.slice(0, half)} ... ${source.slice(-half)}`;
}
