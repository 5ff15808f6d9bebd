import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/** CWL runs (docs/cwl.md, "Running CWL"): what `gdflow cwl run` posts and polls. */
export function registerCwlRunRoutes(app: FastifyInstance, context: RouteContext): void {
  const runs = context.services.cwlRuns;
  app.post<RouteTypes<typeof ROUTES.RunCwl>>(ROUTES.RunCwl.url, routeOptions(ROUTES.RunCwl), async (request) => runs.start(request.scope, request.body));
  app.get<RouteTypes<typeof ROUTES.GetCwlRun>>(ROUTES.GetCwlRun.url, routeOptions(ROUTES.GetCwlRun), async (request) =>
    runs.get(request.scope, request.params.task),
  );
}
