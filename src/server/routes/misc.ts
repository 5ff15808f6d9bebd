import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../domain/errors.js';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/** Routes the `gwc` CLI calls beyond INTERFACE.md (docs/wire.md §2), and a health check. */
export function registerMiscRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get(ROUTES.Credentials.url, routeOptions(ROUTES.Credentials), (request) => {
    const caller = request.caller;
    return { account_name: caller.accountName, user_name: caller.userName };
  });

  app.get<RouteTypes<typeof ROUTES.AuthorizedPolicies>>(ROUTES.AuthorizedPolicies.url, routeOptions(ROUTES.AuthorizedPolicies), (request) => {
    const caller = request.caller;
    if (request.params.account !== caller.accountName) {
      throw forbidden(`account '${caller.accountName}' may not read the policies of account '${request.params.account}'`);
    }
    // gdflow has no fine-grained policies: an account's keys may do everything in its projects.
    return [];
  });

  app.get(ROUTES.Health.url, routeOptions(ROUTES.Health), () => ({ status: 'ok', ...context.health() }));
}
