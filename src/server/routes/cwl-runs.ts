import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from '../app.js';
import { routeOptions, type RouteTypes } from '../route-options.js';
import { scopeOf } from './tools.js';

/** CWL runs (docs/cwl.md, "Running CWL"): what `gdflow cwl run` posts and polls. */
export function registerCwlRunRoutes(app: FastifyInstance, context: RouteContext): void {
  const runs = context.services.cwlRuns;
  app.post<RouteTypes<typeof ROUTES.RunCwl>>(ROUTES.RunCwl.url, routeOptions(ROUTES.RunCwl), async (request) => runs.start(scopeOf(request, context), request.body));
  app.get<RouteTypes<typeof ROUTES.GetCwlRun>>(ROUTES.GetCwlRun.url, routeOptions(ROUTES.GetCwlRun), async (request) =>
    runs.get(scopeOf(request, context), request.params.task),
  );
}
