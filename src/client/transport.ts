import { authorizationHeader, contentMd5, signRequest } from '../signing/index.js';
import { bodyText, GdApiError, GdConnectionError } from './errors.js';
import type { Fetch } from './trusted-fetch.js';
import { parseExactJson, stringifyExactJson } from '../contract/exact-json.js';

export interface Credentials {
  accessKeyId: string;
  accessKeySecret: string;
}

export interface TransportOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:8080 (a trailing `/` is ignored). */
  endpoint: string;
  credentials: Credentials;
  /** Retries of transient failures (connection errors, 5xx); 4xx are never retried. Default 3. */
  retries?: number;
  /** First backoff delay in ms; doubled each retry, with full jitter. Default 200. */
  backoffMs?: number;
  /** Per-attempt timeout in ms. Default 60 000. */
  timeoutMs?: number;
  /** Injectable clock for the Date header. */
  now?: () => Date;
  /** Send Content-MD5 with bodies (the server checks it). Default true. */
  contentMd5?: boolean;
  /** What sends the requests (default: the global fetch); fetchTrusting(ca) for a private CA. */
  fetch?: Fetch;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  /** A JSON value (sent as application/json) or raw bytes. */
  json?: unknown;
  body?: Buffer | Uint8Array | ReadableStream<Uint8Array> | NodeJS.ReadableStream;
  contentType?: string;
  headers?: Record<string, string>;
  /** Do not retry (for requests that are not idempotent and must not be repeated blindly). */
  noRetry?: boolean;
  /**
   * Which failures are retried: `transient` (default: connection errors and 5xx) or `unsent`
   * (only connection errors that prove the request never reached the server, such as a refused
   * connection), for requests that must not run twice.
   */
  retryOn?: 'transient' | 'unsent';
}

/** Connection errors raised before any byte of the request was sent. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Percent-encode one path segment (names may hold spaces in other clients' data). */
export const segment = (value: string | number): string => encodeURIComponent(String(value));

/**
 * Signs and sends requests (docs/wire.md §1), decodes GeneDock error bodies into GdApiError, and retries
 * transient failures with jittered exponential backoff. The signature covers exactly the target
 * that goes on the wire.
 */
export class Transport {
  readonly endpoint: string;
  constructor(private readonly options: TransportOptions) {
    this.endpoint = options.endpoint.replace(/\/+$/, '');
  }

  target(path: string, query?: RequestOptions['query']): string {
    const url = new URL(this.endpoint + path);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.pathname + url.search;
  }

  /** Send and return the raw response (status < 400), or throw GdApiError / GdConnectionError. */
  async send(method: string, path: string, request: RequestOptions = {}): Promise<Response> {
    const target = this.target(path, request.query);
    let body: Buffer | Uint8Array | ReadableStream<Uint8Array> | NodeJS.ReadableStream | undefined = request.body;
    let contentType = request.contentType;
    if (request.json !== undefined) {
      body = Buffer.from(stringifyExactJson(request.json), 'utf8');
      contentType = 'application/json';
    }
    const streaming = body !== undefined && !(body instanceof Uint8Array);
    const retries = streaming || request.noRetry ? 0 : (this.options.retries ?? 3);
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { ...request.headers, Date: (this.options.now?.() ?? new Date()).toUTCString() };
      if (contentType) headers['Content-Type'] = contentType;
      if (body instanceof Uint8Array && (this.options.contentMd5 ?? true) && headers['Content-MD5'] === undefined)
        headers['Content-MD5'] = contentMd5(Buffer.from(body));
      const signature = signRequest(this.options.credentials.accessKeySecret, { method, target, headers });
      headers.Authorization = authorizationHeader(this.options.credentials.accessKeyId, signature);
      let response: Response;
      try {
        response = await (this.options.fetch ?? fetch)(this.endpoint + target, {
          method,
          headers,
          body: body as RequestInit['body'],
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
          ...(streaming ? { duplex: 'half' } : {}),
        });
      } catch (error) {
        const unsent = UNSENT_CODES.has(errorCode(error) ?? '');
        if (attempt < retries && (request.retryOn !== 'unsent' || unsent)) {
          await sleep(Math.random() * (this.options.backoffMs ?? 200) * 2 ** attempt);
          continue;
        }
        throw new GdConnectionError(
          `cannot reach ${this.endpoint}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`,
          { cause: error },
        );
      }
      if (response.status < 400) return response;
      if (response.status >= 500 && attempt < retries && request.retryOn !== 'unsent') {
        await response.arrayBuffer().catch(() => undefined);
        await sleep(Math.random() * (this.options.backoffMs ?? 200) * 2 ** attempt);
        continue;
      }
      throw await toApiError(response);
    }
  }

  /** Send and decode a JSON answer; an empty body gives undefined. */
  async json<T>(method: string, path: string, request: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, request);
    const text = await response.text();
    return (text === '' ? undefined : parseExactJson(text)) as T;
  }
}

async function toApiError(response: Response): Promise<GdApiError> {
  const requestId = response.headers.get('x-gd-requestid') ?? undefined;
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return new GdApiError(
      response.status,
      bodyText(body.error_code, `HTTP${response.status}`),
      bodyText(body.error_message, text),
      bodyText(body.error_message_chs, ''),
      requestId,
    );
  } catch {
    return new GdApiError(response.status, `HTTP${response.status}`, text.slice(0, 500) || response.statusText, '', requestId);
  }
}
