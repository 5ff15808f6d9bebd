/**
 * The console's API client: every request is signed here, in the browser, with the server's own signing files
 * (src/signing/canonical.ts and hmac-sha1.ts; docs/wire.md §1). Browsers cannot set Date, so the date travels in
 * x-gd-date, which is signed as an x-gd- header. The secret lives in memory and in sessionStorage (session.ts),
 * never in a URL or in localStorage.
 */
import { stringToSign } from '../../src/signing/canonical.js';
import { hmacSha1Base64, hmacSha1Key, type HmacSha1Key } from '../../src/signing/hmac-sha1.js';

export interface Credentials {
  accessKeyId: string;
  accessKeySecret: string;
}

/** A GeneDock error answer (docs/wire.md §3), or a failure to reach the server (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly messageChs: string,
    readonly requestId: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  json?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

/** Percent-encode each segment of a path, keeping its slashes. */
export const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

/** `?a=1&b=2` of the defined values, or the empty string. */
export function queryString(query: Record<string, string | number | undefined> | undefined): string {
  if (!query) return '';
  const items = Object.entries(query).filter(([, v]) => v !== undefined && v !== '');
  return items.length === 0 ? '' : `?${items.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`;
}

export class Api {
  private readonly key: HmacSha1Key;
  /** Server clock minus ours, in ms: learnt from a RequestTimeTooSkewed answer's Date header. */
  private skew = 0;

  constructor(private readonly credentials: Credentials) {
    this.key = hmacSha1Key(credentials.accessKeySecret);
  }

  /** The headers that sign a request for `target` (path and query exactly as sent). */
  signedHeaders(method: string, target: string, contentType?: string): Record<string, string> {
    const headers: Record<string, string> = { 'x-gd-date': new Date(Date.now() + this.skew).toUTCString() };
    if (contentType) headers['Content-Type'] = contentType;
    const signature = hmacSha1Base64(this.key, stringToSign({ method, target, headers }));
    headers.Authorization = `GeneDock ${this.credentials.accessKeyId}:${signature}`;
    return headers;
  }

  /** A signed request; a GeneDock error answer is thrown as an ApiError. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const target = path + queryString(options.query);
    for (let attempt = 0; ; attempt++) {
      const body = options.json === undefined ? undefined : JSON.stringify(options.json);
      const headers = this.signedHeaders(method, target, body === undefined ? undefined : 'application/json');
      let response: Response;
      try {
        response = await fetch(target, { method, headers, body, signal: options.signal, cache: 'no-store', credentials: 'omit' });
      } catch (error) {
        if (error instanceof DOMException && error.name === 'AbortError') throw error;
        throw new ApiError(0, 'NetworkError', `the server could not be reached (${String(error)})`, `无法连接服务器（${String(error)}）`, '');
      }
      if (response.ok) return response;
      const failure = await errorOf(response);
      // A browser whose clock is off: sign again with the server's clock, once.
      if (failure.code === 'RequestTimeTooSkewed' && attempt === 0) {
        const serverDate = Date.parse(response.headers.get('date') ?? '');
        if (Number.isFinite(serverDate)) {
          this.skew = serverDate - Date.now();
          continue;
        }
      }
      throw failure;
    }
  }

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Upload a file with progress (fetch cannot report an upload's progress; XMLHttpRequest can). Resolves with the
   * server's answer, rejects with an ApiError.
   */
  upload(path: string, file: Blob, onProgress: (loaded: number, total: number) => void, signal?: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('PUT', path);
      for (const [name, value] of Object.entries(this.signedHeaders('PUT', path, 'application/octet-stream'))) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
      xhr.onload = () => {
        if (xhr.status >= 200 && xhr.status < 300) {
          onProgress(file.size, file.size);
          resolve(xhr.responseText ? JSON.parse(xhr.responseText) : undefined);
        } else reject(parseError(xhr.status, xhr.responseText, xhr.getResponseHeader('x-gd-requestid') ?? ''));
      };
      xhr.onerror = () => reject(new ApiError(0, 'NetworkError', 'the upload was interrupted', '上传中断', ''));
      xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
      signal?.addEventListener('abort', () => xhr.abort());
      xhr.send(file);
    });
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  return parseError(response.status, await response.text().catch(() => ''), response.headers.get('x-gd-requestid') ?? '');
}

function parseError(status: number, text: string, requestId: string): ApiError {
  try {
    const body = JSON.parse(text) as { error_code?: string; error_message?: string; error_message_chs?: string };
    if (typeof body.error_code === 'string') return new ApiError(status, body.error_code, body.error_message ?? '', body.error_message_chs ?? '', requestId);
  } catch {
    // not JSON: described below
  }
  return new ApiError(status, `HTTP${status}`, `the server answered ${status}`, `服务器返回 ${status}`, requestId);
}
