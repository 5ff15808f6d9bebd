/**
 * Requests of the wdl/ routes as gwc 0.4.4 and gdpy 0.1.17 make them (docs/wire.md §8): multipart forms built as
 * Python requests builds `files=` and `data=` (a 32-hex boundary, text fields first, file parts with a filename and
 * no Content-Type of their own), signed over the full `multipart/form-data; boundary=...` Content-Type.
 */
import { randomBytes } from 'node:crypto';
import { zipSync, strToU8 } from 'fflate';
import { rawRequest, signedRequest, type RawResponse } from './raw.js';
import type { Scope } from '../../src/domain/tools/service.js';
import { projectPath, type TestAccount, type TestServer } from './server.js';

export interface FormPart {
  filename: string;
  data: string | Buffer;
}

/** A multipart body as requests (urllib3) encodes it, and its Content-Type. */
export function gwcForm(fields: Record<string, string>, files: Record<string, FormPart> = {}): { body: Buffer; contentType: string } {
  const boundary = randomBytes(16).toString('hex');
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const [name, file] of Object.entries(files)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file.filename}"\r\n\r\n`));
    parts.push(typeof file.data === 'string' ? Buffer.from(file.data) : file.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Send a signed multipart request (POST or PUT) to a path of the account's default project. */
export function sendForm(
  server: TestServer,
  account: TestAccount,
  method: 'POST' | 'PUT',
  rest: string,
  form: { body: Buffer; contentType: string },
): Promise<RawResponse> {
  return rawRequest(server.url, {
    method,
    target: projectPath(account.name, rest),
    headers: { 'Content-Type': form.contentType },
    body: form.body,
    sign: { id: account.accessKeyId, secret: account.accessKeySecret },
  });
}

/** A signed request as gdpy sends it (JSON body or none). */
export function gdpy(server: TestServer, account: TestAccount, method: string, rest: string, body?: unknown): Promise<RawResponse> {
  return signedRequest(server.url, account, method, projectPath(account.name, rest), body);
}

/** A zip of files (path -> text), as `zip -r` makes one. */
export function zipOf(files: Record<string, string>): Buffer {
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, strToU8(text)]))));
}

/** An unsigned GET of an absolute link (as gwc downloads `source` and `dependencies`). */
export async function unsignedGet(link: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const response = await fetch(link);
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

/** A WDL 1.0 workflow that imports its task from lib/tasks.wdl (LIB), as a dependencies zip carries it. */
export const MAIN = `version 1.0
import "lib/tasks.wdl" as lib

workflow hello {
  input {
    String who
    Int times = 2
  }
  call lib.greet { input: who = who }
  output {
    File out = greet.out
  }
}
`;

/** The imported task of MAIN. */
export const LIB = `version 1.0

task greet {
  input {
    String who
  }
  command <<<
    echo "hello ~{who}"
  >>>
  output {
    File out = stdout()
  }
}
`;

/** The scope the services are called with for an account's default project, as the routes make it for its admin. */
export async function scopeOf(server: TestServer, account: TestAccount): Promise<Scope> {
  const stored = (await server.services.store.getAccount(account.name))!;
  return {
    caller: { accountId: stored.id, accountName: account.name, userName: 'admin', accessKeyId: account.accessKeyId },
    account: account.name,
    project: 'default',
    baseUrl: server.url,
  };
}
