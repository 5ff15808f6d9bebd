import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { packageVersion } from '../../package-root.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/** INTERFACE.md 4.1–4.7: the seven tool operations. Schemas: contract/tools.ts. */

export function registerToolRoutes(app: FastifyInstance, context: RouteContext): void {
  const tools = context.services.tools;
  const gdflowVersion = packageVersion();

  app.post<RouteTypes<typeof ROUTES.CreateTool>>(ROUTES.CreateTool.url, routeOptions(ROUTES.CreateTool), async (request, reply) => {
    await tools.create(request.scope, request.body);
    return reply.code(200).send();
  });

  app.put<RouteTypes<typeof ROUTES.PutTool>>(ROUTES.PutTool.url, routeOptions(ROUTES.PutTool), async (request, reply) => {
    await tools.put(request.scope, request.params.tool, request.body);
    return reply.code(200).send();
  });

  app.delete<RouteTypes<typeof ROUTES.DeleteTool>>(ROUTES.DeleteTool.url, routeOptions(ROUTES.DeleteTool), async (request, reply) => {
    await tools.delete(request.scope, request.params.tool, request.query);
    return reply.code(200).send();
  });

  // Reads of definitions: their answers are kept until the next write (see ReadCache).
  const read = context.cachedRead;

  app.get<RouteTypes<typeof ROUTES.ListTool>>(
    ROUTES.ListTool.url,
    routeOptions(ROUTES.ListTool),
    read((request) => tools.list(request.scope)),
  );

  app.get<RouteTypes<typeof ROUTES.GetTool>>(
    ROUTES.GetTool.url,
    routeOptions(ROUTES.GetTool),
    read((request) => tools.get(request.scope, request.params.tool, request.query)),
  );

  app.get<RouteTypes<typeof ROUTES.GetToolParameterTemplate>>(
    ROUTES.GetToolParameterTemplate.url,
    routeOptions(ROUTES.GetToolParameterTemplate),
    read((request) => tools.parameterTemplate(request.scope, request.params.tool, request.query)),
  );

  app.get<RouteTypes<typeof ROUTES.GetToolDetails>>(
    ROUTES.GetToolDetails.url,
    routeOptions(ROUTES.GetToolDetails),
    read((request) => tools.details(request.scope, request.params.tool, request.query)),
  );

  app.get<RouteTypes<typeof ROUTES.ExportToolCwl>>(
    ROUTES.ExportToolCwl.url,
    routeOptions(ROUTES.ExportToolCwl),
    read((request) => tools.exportCwl(request.scope, request.params.tool, request.query, gdflowVersion)),
  );
}
