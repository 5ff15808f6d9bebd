import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import { DEFAULT_PROJECT, type Caller } from '../../domain/access.js';
import type { Services } from '../../domain/services.js';
import type { TesScope } from '../../domain/tes/service.js';
import { httpError } from '../errors.js';
import { routeOptions, type RouteTypes } from '../route-options.js';
import type { RouteContext } from './context.js';
import { ga4ghServiceInfo } from './ga4gh-service-info.js';

/**
 * GA4GH TES 1.1 at /ga4gh/tes/v1 (docs/ga4gh.md). A client acts in one project of its account: a bearer token's, or
 * the account's default project (Basic credentials and signed requests).
 */
export function registerTesRoutes(app: FastifyInstance, context: RouteContext): void {
  const { tes } = context.services;
  const scope = (request: FastifyRequest): TesScope => {
    const caller: Caller | null = request.caller;
    if (!caller) throw httpError('MissingAuthorization', 'the request carries no credentials');
    return { caller, project: caller.project ?? DEFAULT_PROJECT };
  };

  app.get(ROUTES.Tes.serviceInfo.url, routeOptions(ROUTES.Tes.serviceInfo), (request) => serviceInfo(context.baseUrl(request), context.services));

  app.post<RouteTypes<typeof ROUTES.Tes.create>>(ROUTES.Tes.create.url, routeOptions(ROUTES.Tes.create), async (request) =>
    tes.create(scope(request), request.body),
  );

  app.get<RouteTypes<typeof ROUTES.Tes.list>>(ROUTES.Tes.list.url, routeOptions(ROUTES.Tes.list), async (request) => tes.list(scope(request), request.query));

  app.get<RouteTypes<typeof ROUTES.Tes.get>>(ROUTES.Tes.get.url, routeOptions(ROUTES.Tes.get), async (request) =>
    tes.get(scope(request), request.params.id, request.query.view ?? 'MINIMAL'),
  );

  app.post<RouteTypes<typeof ROUTES.Tes.cancel>>(ROUTES.Tes.cancel.url, routeOptions(ROUTES.Tes.cancel), async (request) =>
    tes.cancel(scope(request), request.params.id, context.baseUrl(request)),
  );
}

function serviceInfo(baseUrl: string, services: Services) {
  const policy = services.tes.policy;
  return {
    ...ga4ghServiceInfo(baseUrl, {
      artifact: 'tes',
      version: '1.1.0',
      description: "GA4GH TES 1.1 on gdflow: each task is a gdflow task of one job, run on the server's executor (docs/ga4gh.md)",
    }),
    storage: [
      "gdflow:/ (the caller's data store; gdflow://public/ for public data)",
      ...policy.fileRoots.map((root) => `file://${root} (inputs)`),
      ...policy.outputRoots.map((root) => `file://${root} (outputs)`),
      ...policy.fetchHosts.list.map((host) => `http(s)://${host} (inputs)`),
    ],
    tesResources_backend_parameters: ['network'],
  };
}
