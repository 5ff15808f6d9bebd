import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { newRequestId } from '../ids.js';
import { DomainError } from '../domain/errors.js';
import { isDatabaseUnavailable } from '../store/sql-errors.js';
import { StoreUnavailable } from '../store/store.js';
import type { Logger } from './logger.js';
import { validationReason } from './validation-message.js';
import { COMMON_ERRORS, HttpError, OPERATION_ERRORS, renderGa4gh, renderSpec, specForDomainError, type ErrorSpec } from './errors.js';

/** Send the GeneDock error body for `spec`. */
export function sendError(reply: FastifyReply, spec: ErrorSpec, reason: string): FastifyReply {
  // Requests that did not come through the server factory (app.inject) get their id here.
  if (!reply.hasHeader('x-gd-requestid')) reply.header('x-gd-requestid', reply.request.id);
  if (isGa4gh(reply.request.url)) {
    // The GA4GH APIs answer in their own form (docs/ga4gh.md), and a 401 says which credentials they take.
    if (spec.status === 401) reply.header('www-authenticate', 'Basic realm="gdflow", Bearer realm="gdflow"');
    return reply.code(spec.status).type('application/json').send(renderGa4gh(spec, reason));
  }
  return reply.code(spec.status).type('application/json').send(renderSpec(spec, reason));
}

/** Whether a request is one of the GA4GH APIs' (clients configured with a trailing / send `//ga4gh/...`). */
const isGa4gh = (url: string): boolean => /^\/+ga4gh(\/|$|\?)/.test(url);

/** Write a GeneDock error straight to a socket, for errors raised before Fastify sees a request. */
export function writeRawError(socket: Socket, spec: ErrorSpec, reason: string): void {
  if (!socket.writable) return;
  const body = JSON.stringify(renderSpec(spec, reason));
  socket.end(
    `HTTP/1.1 ${spec.status} ${spec.code}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `x-gd-requestid: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Fastify's own errors for malformed or oversized requests, mapped to the catalogue. */
function frameworkSpec(error: FastifyError, request: FastifyRequest): { spec: ErrorSpec; reason: string } | undefined {
  const operation = request.routeOptions.config?.operation;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { spec: COMMON_ERRORS.EntityTooLarge, reason: `the body is larger than the limit of ${request.routeOptions.bodyLimit} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        spec: COMMON_ERRORS.UnsupportedMediaType,
        reason: `Content-Type '${request.headers['content-type'] ?? ''}' is not accepted here; send application/json`,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { spec: COMMON_ERRORS.MalformedRequest, reason: 'Content-Length does not match the body' };
    case 'FST_ERR_BAD_URL':
      return { spec: COMMON_ERRORS.MalformedRequest, reason: 'the request path holds a malformed percent escape' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { spec: COMMON_ERRORS.MalformedRequest, reason: 'a path segment is longer than 1000 characters' };
    default:
      break;
  }
  if (error.validation) {
    const reason = validationReason(error.validation, error.validationContext);
    return { spec: operation ? OPERATION_ERRORS[operation].invalid : COMMON_ERRORS.MalformedRequest, reason };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { spec: { ...COMMON_ERRORS.MalformedRequest, status: error.statusCode }, reason: error.message };
  }
  return undefined;
}

/** The one error handler: known errors render from the catalogue, anything else is a plain 500 (and a log line). */
export const errorHandler =
  (logger: Logger) =>
  (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    handleError(error, request, reply, logger);

function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply, logger: Logger): FastifyReply {
  if (error instanceof HttpError) return sendError(reply, error.spec, error.reason);
  if (error instanceof DomainError) {
    return sendError(reply, specForDomainError(request.routeOptions.config?.operation, error), error.reason);
  }
  const known = frameworkSpec(error as FastifyError, request);
  if (known) return sendError(reply, known.spec, known.reason);
  if (error instanceof StoreUnavailable || isDatabaseUnavailable(error)) {
    // Nothing wrong with the request: the database could not serve it now, and the same request may be sent again.
    logger.warn({ err: error, reqId: request.id, method: request.method, url: request.url }, 'the database could not serve a request');
    const reason = error instanceof StoreUnavailable ? error.message : 'the database is unreachable or busy';
    return sendError(reply.header('retry-after', '1'), COMMON_ERRORS.ServiceUnavailable, `${reason}; send the request again`);
  }
  logger.error({ err: error, reqId: request.id, method: request.method, url: request.url }, 'unhandled error');
  return sendError(reply, COMMON_ERRORS.InternalError, String(request.id));
}
