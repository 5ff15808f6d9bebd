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

/** The error of a log link's answer: the GeneDock body when there is one (an expired link is a 403 AccessDenied). */
export async function logFailure(response: Response): Promise<GdApiError> {
  const text = await response.text();
  const requestId = response.headers.get('x-gd-requestid') ?? undefined;
  try {
    const body = JSON.parse(text) as { error_code?: unknown; error_message?: unknown; error_message_chs?: unknown };
    if (typeof body.error_code === 'string') {
      return new GdApiError(response.status, body.error_code, bodyText(body.error_message, ''), bodyText(body.error_message_chs, ''), requestId);
    }
  } catch {
    // Not JSON: the text itself.
  }
  return new GdApiError(response.status, `HTTP${response.status}`, text.slice(0, 500), '', requestId);
}

/** A `.catch` handler that turns a 404 into `value` and rethrows anything else. */
export function notFoundAs<T>(value: T): (error: unknown) => T {
  return (error: unknown) => {
    if (error instanceof GdApiError && error.status === 404) return value;
    throw error;
  };
}
