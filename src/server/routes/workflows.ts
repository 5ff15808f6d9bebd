import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { packageVersion } from '../../package-root.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/** INTERFACE.md 4.8–4.14, the run-template update of docs/wire.md §2, and the graph view. */

export function registerWorkflowRoutes(app: FastifyInstance, context: RouteContext): void {
  const workflows = context.services.workflows;
  const gdflowVersion = packageVersion();
  // Reads of definitions: their answers are kept until the next write (see ReadCache).
  const read = context.cachedRead;

  app.post<RouteTypes<typeof ROUTES.CreateWorkflow>>(ROUTES.CreateWorkflow.url, routeOptions(ROUTES.CreateWorkflow), async (request, reply) => {
    await workflows.create(request.scope, request.body);
    return reply.code(200).send();
  });

  app.put<RouteTypes<typeof ROUTES.PutWorkflow>>(ROUTES.PutWorkflow.url, routeOptions(ROUTES.PutWorkflow), async (request, reply) => {
    await workflows.put(request.scope, request.params.workflow, request.body);
    return reply.code(200).send();
  });

  app.get<RouteTypes<typeof ROUTES.GetWorkflow>>(
    ROUTES.GetWorkflow.url,
    routeOptions(ROUTES.GetWorkflow),
    read((request) => workflows.get(request.scope, request.params.workflow, request.query)),
  );

  app.delete<RouteTypes<typeof ROUTES.DeleteWorkflow>>(ROUTES.DeleteWorkflow.url, routeOptions(ROUTES.DeleteWorkflow), async (request, reply) => {
    await workflows.delete(request.scope, request.params.workflow, request.query);
    return reply.code(200).send();
  });

  app.get<RouteTypes<typeof ROUTES.ListWorkflow>>(
    ROUTES.ListWorkflow.url,
    routeOptions(ROUTES.ListWorkflow),
    read((request) => workflows.list(request.scope)),
  );

  app.get<RouteTypes<typeof ROUTES.GetWorkflowGraph>>(
    ROUTES.GetWorkflowGraph.url,
    routeOptions(ROUTES.GetWorkflowGraph),
    read((request) => workflows.graph(request.scope, request.params.workflow, request.query)),
  );

  app.get<RouteTypes<typeof ROUTES.ListExecutableWorkflow>>(
    ROUTES.ListExecutableWorkflow.url,
    routeOptions(ROUTES.ListExecutableWorkflow),
    read((request) => workflows.listExecutable(request.scope)),
  );

  app.get<RouteTypes<typeof ROUTES.GetExecutableWorkflow>>(
    ROUTES.GetExecutableWorkflow.url,
    routeOptions(ROUTES.GetExecutableWorkflow),
    read((request) => workflows.getExecutable(request.scope, request.params.workflow, request.query)),
  );

  app.put<RouteTypes<typeof ROUTES.SetRunTemplate>>(ROUTES.SetRunTemplate.url, routeOptions(ROUTES.SetRunTemplate), async (request, reply) => {
    await workflows.setRunTemplate(request.scope, request.params.workflow, request.body);
    return reply.code(200).send();
  });

  app.get<RouteTypes<typeof ROUTES.ExportWorkflowCwl>>(
    ROUTES.ExportWorkflowCwl.url,
    routeOptions(ROUTES.ExportWorkflowCwl),
    read((request) => workflows.exportCwl(request.scope, request.params.workflow, request.query, gdflowVersion)),
  );

  // gwc 0.4.4 also looks for WDL workflows (docs/wire.md §7); gdflow has none, so these answer an
  // empty JSON list, never an object or a 5xx (to a signed request: the signature is checked first, as on every route).
  app.get<RouteTypes<typeof ROUTES.WdlListWorkflow>>(ROUTES.WdlListWorkflow.url, routeOptions(ROUTES.WdlListWorkflow), () => []);
  app.get<RouteTypes<typeof ROUTES.WdlGetWorkflow>>(ROUTES.WdlGetWorkflow.url, routeOptions(ROUTES.WdlGetWorkflow), () => []);
}
