import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { authorizationHeader, signRequest } from '../../src/signing/index.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

/**
 * Send one request with node:http exactly as given (raw target, chosen headers), signing it
 * when a key is given. For tests that need control fetch does not give.
 */
export function rawRequest(
  url: string,
  options: { method: string; target: string; headers?: Record<string, string>; body?: string | Buffer; sign?: { id: string; secret: string } },
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  // A body goes with its length, as every client frames it: Node's client sends a GET's body without Content-Length
  // or chunking, which the server then rightly reads as the start of the connection's next request.
  const framed = Object.keys(headers).some((h) => ['content-length', 'transfer-encoding'].includes(h.toLowerCase()));
  if (options.body !== undefined && !framed) headers['Content-Length'] = String(Buffer.byteLength(options.body));
  if (options.sign) {
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'date' || h.toLowerCase() === 'x-gd-date')) headers.Date = new Date().toUTCString();
    const signature = signRequest(options.sign.secret, { method: options.method, target: options.target, headers });
    headers.Authorization = authorizationHeader(options.sign.id, signature);
  }
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method: options.method, path: options.target, headers }, (res) => {
      const chunks: Buffer[] = [];
      // An answer cut short fails the request rather than leaving it waiting.
      res.on('error', reject);
      res.on('aborted', () => reject(new Error(`the answer to ${options.method} ${options.target.slice(0, 100)} was cut short`)));
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Write bytes to the server's socket and read what comes back until it closes. */
export function rawSocket(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', (error) => (chunks.length > 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(error)));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

/** Split a raw HTTP response into status, headers and JSON body. */
export function parseRawResponse(raw: string): { status: number; headers: Record<string, string>; body: any } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

/**
 * A request signed with an account's key as gdpy sends it (docs/wire.md §1): a body as JSON with
 * `Content-Type: application/json` and no charset; no Content-Type without a body; a Date header; no x-gd- headers.
 * `headers` add to or replace these (a test of another Content-Type).
 */
export function signedRequest(
  url: string,
  key: { accessKeyId: string; accessKeySecret: string },
  method: string,
  target: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return rawRequest(url, {
    method,
    target,
    headers: { ...(text !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
    ...(text !== undefined ? { body: text } : {}),
    sign: { id: key.accessKeyId, secret: key.accessKeySecret },
  });
}

/** Assert a GeneDock error answer (docs/wire.md §3): the status, the code, all three members, a message that matches. */
export function assertRefused(response: RawResponse, status: number, code: string, message: RegExp): void {
  assert.equal(response.status, status, response.text);
  const body = response.json();
  assert.equal(body.error_code, code, response.text);
  assert.match(body.error_message, message);
  assert.equal(typeof body.error_message_chs, 'string', response.text);
  assert.ok(body.error_message_chs.length > 0, response.text);
}
