/**
 * A workflow rule broken by the values of a run rather than by the document: `pickValue` finding no non-null
 * value (or more than one), scatter lists of different lengths, a `when` that is not a boolean, a workflow output
 * that does not match its declared type. It is a permanent failure of the step (or the workflow) whose values
 * broke the rule; the message names the step and the input or output. Problems of the document itself (a cycle
 * between steps) are CwlValidationErrors, found before anything runs. A step expression that fails (an
 * ExpressionError) comes out as one too, naming the field, with the ExpressionError as its cause.
 */
export class WorkflowRunError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkflowRunError';
  }
}
