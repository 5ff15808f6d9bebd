import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { actorOf, audited, refused } from '../domain/audit.js';
import type { AuditEntry, Store } from '../store/store.js';
import type { Logger } from './logger.js';
import { signedCaller } from './plugins/authentication.js';

/**
 * The audit log's part in the HTTP layer (docs/operating.md, "Audit log"). The domain records every write it makes in
 * that write's transaction; what it cannot record is here:
 * - a refused write (a 4xx or 5xx answer to an authenticated write request), in an entry of its own;
 * - a data upload or delete, which writes files, not rows: its entry follows the write.
 * Requests whose signature fails are not recorded (anybody could fill the log with them); the access log has them.
 */

const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** The audit log's name of a route's operation (tasks and data share one catalogue operation per resource). */
function operationName(operation: string | undefined, method: string): string {
  if (operation === 'Task') return method === 'DELETE' ? 'DeleteTask' : 'StopTask';
  if (operation === 'Data') return method === 'DELETE' ? 'DeleteData' : 'PutData';
  return operation ?? `${method} request`;
}

function entryFor(request: FastifyRequest, reply: FastifyReply, payload: unknown): AuditEntry | undefined {
  const caller = signedCaller(request);
  if (!caller) return undefined;
  const operation = operationName(request.routeOptions.config?.operation, request.method);
  const params = request.params as Record<string, string | undefined>;
  const account = params.account ?? caller.accountName;
  const actor = actorOf(caller);
  if (reply.statusCode >= 400) {
    const { code, message } = errorOf(payload);
    return refused(actor, operation, account, `${request.method} ${request.url}`, code ?? String(reply.statusCode), message ?? '');
  }
  if (operation === 'PutData' || operation === 'DeleteData') return audited(actor, operation, account, `${account}:/${params['*'] ?? ''}`);
  return undefined;
}

/** The error code and message of a GeneDock error body. */
function errorOf(payload: unknown): { code?: string; message?: string } {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return {};
  try {
    const body = JSON.parse(payload.toString()) as { error_code?: unknown; error_message?: unknown; msg?: unknown; status_code?: unknown };
    // A GA4GH error body (docs/ga4gh.md) has its message and status only.
    if (typeof body.msg === 'string') return { code: `HTTP ${String(body.status_code)}`, message: body.msg };
    return {
      ...(typeof body.error_code === 'string' ? { code: body.error_code } : {}),
      ...(typeof body.error_message === 'string' ? { message: body.error_message } : {}),
    };
  } catch {
    return {};
  }
}

/** Hook the audit into every signed write route registered after this (call before the routes). */
export function registerAuditHook(app: FastifyInstance, store: Store, logger: Logger): void {
  const record = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const entry = entryFor(request, reply, payload);
    if (!entry) return payload;
    try {
      // Before the answer leaves: a client that saw the answer finds the entry.
      await store.recordAudit(entry);
    } catch (error) {
      // The write's outcome stands; the missing entry is logged where operators look.
      logger.error({ err: error, reqId: request.id, audit: entry }, 'could not record an audit entry');
    }
    return payload;
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.config?.auth === false || !methods.some((m) => WRITE_METHODS.has(m))) return;
    const existing = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...existing, record];
  });
}
