import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../domain/services.js';

/**
 * What route modules are given besides the request (which carries its caller and scope: plugins/authentication.ts):
 * the domain services, the read cache, and what /healthz adds.
 */
export interface RouteContext {
  services: Services;
  /** The handler of a read whose answer depends only on stored definitions and the request (see ReadCache). */
  cachedRead: <R extends FastifyRequest>(read: (request: R) => Promise<unknown>) => (request: R, reply: FastifyReply) => Promise<void> | undefined;
  health: () => Record<string, unknown>;
  /** The base URL of links in answers: the configured public URL, else the request's protocol and Host. */
  baseUrl: (request: FastifyRequest) => string;
}
