/** An error answered by a gdflow (or GeneDock) server: the HTTP status and the error body. */
export class GdApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly errorMessage: string,
    readonly errorMessageChs: string,
    readonly requestId: string | undefined,
  ) {
    super(`${status} ${errorCode}: ${errorMessage}${requestId ? ` (request ${requestId})` : ''}`);
    this.name = 'GdApiError';
  }

  /** The snake_case names of the wire body, for callers that think in GeneDock terms. */
  get error_code(): string {
    return this.errorCode;
  }
  get error_message(): string {
    return this.errorMessage;
  }
  get error_message_chs(): string {
    return this.errorMessageChs;
  }
  get request_id(): string | undefined {
    return this.requestId;
  }

  /** The wire body plus status and request id, e.g. for `--json` error output. */
  toJSON() {
    return {
      status: this.status,
      error_code: this.errorCode,
      error_message: this.errorMessage,
      error_message_chs: this.errorMessageChs,
      request_id: this.requestId,
    };
  }
}

/** The server could not be reached (after the retries). */
export class GdConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GdConnectionError';
  }
}

/**
 * A field of an error body as text: the GeneDock body's fields are strings; a server that sent something else
 * (a number, a nested object) is shown as JSON rather than as "[object Object]"; a missing field is `otherwise`.
 */
export function bodyText(value: unknown, otherwise: string): string {
  if (value === undefined || value === null) return otherwise;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
