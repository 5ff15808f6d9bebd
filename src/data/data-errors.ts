/** The data store's own failures (besides names.ts's DataPathError), which the routes map to GeneDock errors. */

export class DataNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataNotFoundError';
  }
}

/** The content does not match the expected MD5. */
export class DataChecksumError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataChecksumError';
  }
}

/** The content is larger than the allowed maximum. */
export class DataTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataTooLargeError';
  }
}
