/**
 * multipart/form-data bodies: gwc's WDL workflows (docs/wire.md §8: Python requests' `files=` and `data=`) and WES's
 * run requests (docs/ga4gh.md). Only routes whose config says `multipart` (with their limits) take one; the form is
 * parsed from the bytes received (whose Content-MD5, when sent, is checked as for JSON) into its parts in order, every
 * one kept (domain/multipart-form.ts): each route decides what it accepts (the wdl/ routes refuse a name sent twice,
 * WES takes repeated workflow_attachment files).
 */
import { Busboy } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { invalid } from '../domain/errors.js';
import { addPart, newForm, type FormPart, type MultipartForm } from '../domain/multipart-form.js';
import { contentMd5, getHeader } from '../signing/index.js';
import { httpError } from './errors.js';

/** How many parts of each kind a route's form may have, and how long a text field may be. */
export interface FormLimits {
  fields: number;
  files: number;
  parts: number;
  fieldSize: number;
}

/** The wdl/ routes' forms: a few fields, a document and a zip. */
export const DEFAULT_FORM_LIMITS: FormLimits = { fields: 32, files: 4, parts: 40, fieldSize: 1024 * 1024 };
const FIELD_NAME_SIZE = 128;

export function parseMultipartBody(request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const type = String(request.headers['content-type']).slice(0, 100);
  const limits = request.routeOptions.config.multipart;
  if (!limits) {
    done(invalid(`the Content-Type '${type}' is not application/json`));
    return;
  }
  request.rawBody = body;
  const md5 = getHeader(request.headers, 'content-md5');
  if (md5 !== undefined && md5 !== contentMd5(body)) {
    done(httpError('InvalidDigest', `Content-MD5 '${md5.slice(0, 64)}' is not the base64 MD5 of the ${body.length}-byte body`));
    return;
  }
  parseForm(request.headers as Record<string, string>, body, limits === true ? DEFAULT_FORM_LIMITS : limits).then(
    (form) => done(null, form),
    (error: unknown) => done(error instanceof Error ? error : invalid(String(error))),
  );
}

/** The form in `body`; a refusal (InvalidInput) that says what is wrong with it. */
function parseForm(headers: Record<string, string>, body: Buffer, limits: FormLimits): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { ...headers, 'content-type': headers['content-type'] ?? '' },
        limits: { ...limits, fieldNameSize: FIELD_NAME_SIZE, headerPairs: 32 },
        // A file's name as sent: WES attachments are named by their relative paths.
        preservePath: true,
      });
    } catch (error) {
      reject(invalid(`the multipart body cannot be read (${error instanceof Error ? error.message : String(error)})`));
      return;
    }
    // Each part has its place in the order sent; a file's is filled when its bytes have all come.
    const parts: Array<FormPart | undefined> = [];
    let problem: string | undefined;
    const refuse = (reason: string) => {
      problem ??= reason;
    };
    const pending: Array<Promise<void>> = [];
    parser.on('field', (name, value, nameTruncated, valueTruncated) => {
      if (nameTruncated) return refuse(`a field name is longer than ${FIELD_NAME_SIZE} characters`);
      if (valueTruncated) return refuse(`field '${name}' is longer than ${limits.fieldSize} bytes`);
      parts.push({ name, text: value });
    });
    parser.on('file', (name, stream, filename) => {
      const chunks: Buffer[] = [];
      const place = parts.push(undefined) - 1;
      pending.push(
        new Promise((done) => {
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            parts[place] = { name, file: { filename: filename ?? '', data: Buffer.concat(chunks) } };
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
      parser.on(event, () => refuse(`the form has more than ${limits[what]} ${what}`));
    }
    // A malformed body ends the parse with an error instead of 'finish': refused at once (resolving twice is a no-op).
    parser.on('error', (error: unknown) => reject(invalid(`the multipart body is malformed (${error instanceof Error ? error.message : String(error)})`)));
    parser.on('finish', () => {
      void Promise.all(pending).then(() => {
        if (problem !== undefined) return reject(invalid(problem));
        const form = newForm();
        for (const part of parts) if (part) addPart(form, part);
        resolve(form);
      });
    });
    try {
      parser.end(body);
    } catch (error) {
      reject(invalid(`the multipart body is malformed (${error instanceof Error ? error.message : String(error)})`));
    }
  });
}
