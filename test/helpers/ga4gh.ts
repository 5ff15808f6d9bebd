/**
 * What the GA4GH API tests (TES and WES) share: a server with two accounts and a token for the first, Basic
 * credentials, and a request that reads the answer as JSON whatever its status (GA4GH errors are JSON too).
 */
import { startTestServer, type TestAccount, type TestServer } from './server.js';

export interface Ga4ghServer {
  server: TestServer;
  alice: TestAccount;
  bob: TestAccount;
  /** A Bearer token of alice's. */
  aliceToken: string;
}

export async function startGa4ghServer(): Promise<Ga4ghServer> {
  const server = await startTestServer();
  const alice = await server.account();
  const bob = await server.account();
  const aliceToken = (await server.services.tokens.createToken(alice.name)).token;
  return { server, alice, bob, aliceToken };
}

export const basic = (a: TestAccount): string => `Basic ${Buffer.from(`${a.accessKeyId}:${a.accessKeySecret}`).toString('base64')}`;

export interface Ga4ghAnswer {
  status: number;
  json: any;
  headers: Headers;
}

/** `body`: a value sent as JSON, or bytes (a form, a malformed text) sent as they are with their Content-Type if any. */
export async function ga4ghRequest(
  url: string,
  method: string,
  auth: string | undefined,
  body?: { json: unknown } | { raw: string | FormData; type?: string },
): Promise<Ga4ghAnswer> {
  const type = body === undefined ? undefined : 'json' in body ? 'application/json' : body.type;
  const response = await fetch(url, {
    method,
    headers: { ...(auth ? { authorization: auth } : {}), ...(type ? { 'content-type': type } : {}) },
    ...(body !== undefined ? { body: 'json' in body ? JSON.stringify(body.json) : body.raw } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text), headers: response.headers };
}
