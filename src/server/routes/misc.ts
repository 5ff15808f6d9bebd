import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../domain/errors.js';
import { callerOf, type RouteContext } from '../app.js';

/** Routes the `gwc` CLI calls beyond INTERFACE.md (docs/wire.md §2), and a health check. */
export function registerMiscRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get('/miscellaneous/credentials/', { config: { operation: 'Account' } }, async (request) => {
    const caller = callerOf(request);
    return { account_name: caller.accountName, user_name: caller.userName };
  });

  app.get<{ Params: { account: string; user: string } }>(
    '/accounts/:account/users/:user/authorized_policies/',
    { config: { operation: 'Account' } },
    async (request) => {
      const caller = callerOf(request);
      if (request.params.account !== caller.accountName) {
        throw forbidden(`account '${caller.accountName}' may not read the policies of account '${request.params.account}'`);
      }
      // gdflow has no fine-grained policies: an account's keys may do everything in its projects.
      return [];
    },
  );

  app.get('/healthz', { config: { auth: false } }, async () => ({ status: 'ok', ...context.health() }));
}
