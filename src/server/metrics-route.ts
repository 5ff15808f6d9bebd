import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';
import { sendError } from './error-handler.js';
import { COMMON_ERRORS } from './errors.js';

/**
 * `GET /metrics` in the Prometheus text format, and the hook that counts and times every HTTP answer by route pattern
 * (docs/operating.md, "Metrics"). Scrapers send `Authorization: Bearer <token>` when a token is configured
 * (--metrics-token); without one, only requests from this machine (loopback) are answered. Registered on the API
 * app and on a worker's health app alike.
 */
export function registerMetricsRoute(app: FastifyInstance, options: { metrics: Metrics; token: string }): void {
  const { metrics, token } = options;
  app.addHook('onResponse', (request, reply, done) => {
    // The route's pattern (`/accounts/:account/...`), never the URL: ids would make a series each.
    metrics.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { config: { auth: false } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = token === '' ? loopbackRefusal(request) : tokenRefusal(request, token);
    if (refusal) return sendError(reply, refusal.status === 401 ? COMMON_ERRORS.MissingAuthorization : COMMON_ERRORS.AccessDenied, refusal.reason);
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
}

function loopbackRefusal(request: FastifyRequest): { status: number; reason: string } | undefined {
  // The client's address: behind a trusted proxy (--trust-proxy) the one it forwarded, so that a proxy on this machine
  // does not make every client look local.
  const address = request.ip ?? '';
  if (/^(127\.|::1$|::ffff:127\.)/.test(address)) return undefined;
  return { status: 403, reason: `/metrics answers only this machine unless a metrics token is configured (--metrics-token); the request came from ${address}` };
}

function tokenRefusal(request: FastifyRequest, token: string): { status: number; reason: string } | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return { status: 401, reason: "/metrics needs 'Authorization: Bearer <metrics token>'" };
  const given = Buffer.from(/^Bearer\s+(.*)$/i.exec(header)?.[1]?.trim() ?? '');
  const expected = Buffer.from(token);
  // Compared in constant time, as signatures are.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 403, reason: 'the metrics token is not the configured one' };
  return undefined;
}
