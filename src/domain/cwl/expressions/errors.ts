/**
 * The ways evaluating a CWL expression can fail. What the document causes comes out of evaluate* as an
 * ExpressionError (an evaluator's JavaScriptError is wrapped in one), a permanent failure of the step that
 * evaluates it; an evaluator's own trouble (a closed sandbox) comes out as the Error it is.
 */

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

/** A string's `$(` or `${` is never closed. `position` is where the `$` is. */
export class ExpressionSyntaxError extends ExpressionError {
  constructor(
    readonly text: string,
    readonly position: number,
    reason: string,
  ) {
    super(shortened(text.slice(position), 60), reason);
    this.name = 'ExpressionSyntaxError';
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
