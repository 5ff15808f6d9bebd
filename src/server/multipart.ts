/**
 * multipart/form-data bodies, as gwc sends WDL workflows (docs/wire.md §8): Python requests' `files=` and `data=`.
 * Only routes marked `multipart` in the API table take one; the form is parsed from the bytes received (whose
 * Content-MD5, when sent, is checked as for JSON) into text fields and files, which the domain reads by name.
 */
import { Busboy } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { invalid } from '../domain/errors.js';
import { newForm, type MultipartForm } from '../domain/wdl/workflows/form.js';
import { contentMd5, getHeader } from '../signing/index.js';
import { httpError } from './errors.js';

const LIMITS = { fields: 32, files: 4, parts: 40, fieldSize: 1024 * 1024, fieldNameSize: 128, headerPairs: 32 };

export function parseMultipartBody(request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const type = String(request.headers['content-type']).slice(0, 100);
  if (!request.routeOptions.config.multipart) {
    done(invalid(`the Content-Type '${type}' is not application/json`));
    return;
  }
  request.rawBody = body;
  const md5 = getHeader(request.headers, 'content-md5');
  if (md5 !== undefined && md5 !== contentMd5(body)) {
    done(httpError('InvalidDigest', `Content-MD5 '${md5.slice(0, 64)}' is not the base64 MD5 of the ${body.length}-byte body`));
    return;
  }
  parseForm(request.headers as Record<string, string>, body).then(
    (form) => done(null, form),
    (error: unknown) => done(error instanceof Error ? error : invalid(String(error))),
  );
}

/** The form in `body`; a refusal (InvalidInput) that says what is wrong with it. */
function parseForm(headers: Record<string, string>, body: Buffer): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({ headers: { ...headers, 'content-type': headers['content-type'] ?? '' }, limits: LIMITS });
    } catch (error) {
      reject(invalid(`the multipart body cannot be read (${error instanceof Error ? error.message : String(error)})`));
      return;
    }
    const form = newForm();
    let problem: string | undefined;
    const refuse = (reason: string) => {
      problem ??= reason;
    };
    const pending: Array<Promise<void>> = [];
    parser.on('field', (name, value, nameTruncated, valueTruncated) => {
      if (nameTruncated) return refuse(`a field name is longer than ${LIMITS.fieldNameSize} characters`);
      if (valueTruncated) return refuse(`field '${name}' is longer than ${LIMITS.fieldSize} bytes`);
      if (name in form.fields || name in form.files) return refuse(`field '${name}' is sent twice`);
      form.fields[name] = value;
    });
    parser.on('file', (name, stream, filename) => {
      const chunks: Buffer[] = [];
      pending.push(
        new Promise((done) => {
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            if (name in form.fields || name in form.files) refuse(`field '${name}' is sent twice`);
            else form.files[name] = { filename: filename ?? '', data: Buffer.concat(chunks) };
            done();
          });
          stream.on('error', () => done());
        }),
      );
    });
    for (const [event, what] of [
      ['partsLimit', 'parts'],
      ['filesLimit', 'files'],
      ['fieldsLimit', 'fields'],
    ] as const) {
      parser.on(event, () => refuse(`the form has more than ${LIMITS[what]} ${what}`));
    }
    // A malformed body ends the parse with an error instead of 'finish': refused at once (resolving twice is a no-op).
    parser.on('error', (error: unknown) => reject(invalid(`the multipart body is malformed (${error instanceof Error ? error.message : String(error)})`)));
    parser.on('finish', () => {
      void Promise.all(pending).then(() => (problem === undefined ? resolve(form) : reject(invalid(problem))));
    });
    try {
      parser.end(body);
    } catch (error) {
      reject(invalid(`the multipart body is malformed (${error instanceof Error ? error.message : String(error)})`));
    }
  });
}
