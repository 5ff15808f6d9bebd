/** Where something is in a WDL document: its file, and its 1-based line and column. */
export interface Pos {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** A WDL document that cannot be parsed or does not type-check: the message names the file, line and column. */
export class WdlError extends Error {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  constructor(
    pos: Pos,
    readonly what: string,
  ) {
    super(`${pos.file}:${pos.line}:${pos.column}: ${what}`);
    this.name = 'WdlError';
    this.file = pos.file;
    this.line = pos.line;
    this.column = pos.column;
  }
}

/** A failure while a document's values are evaluated (a missing file, an index out of bounds, a division by zero). */
export class WdlRuntimeError extends Error {
  constructor(message: string, pos?: Pos) {
    super(pos ? `${pos.file}:${pos.line}:${pos.column}: ${message}` : message);
    this.name = 'WdlRuntimeError';
  }
}
