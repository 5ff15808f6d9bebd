/**
 * A CommandLineTool or ExpressionTool run that the document or its inputs make impossible: an expression of the
 * wrong type, a missing required secondary file or output, an output outside the output directory, an input file
 * too large for loadContents. A permanent failure of the step, with a message naming what is wrong. Expression
 * failures come out as the expression layer's ExpressionError, which is the same kind of failure.
 */
export class ToolRunError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolRunError';
  }
}

/**
 * A path of the output directory that leads outside it (`..`, an absolute path, a symbolic link to a host file):
 * what an OutputDirectory rejects with, so that the tool's attempt fails its step like any other ToolRunError.
 */
export class OutsideOutputDirectory extends ToolRunError {
  constructor(message: string) {
    super(message);
    this.name = 'OutsideOutputDirectory';
  }
}
