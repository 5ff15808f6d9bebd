import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/** WDL runs of a document as it is (docs/wdl.md, "gdflow wdl run"): what `gdflow wdl run` posts and polls. */
export function registerWdlRunRoutes(app: FastifyInstance, context: RouteContext): void {
  const runs = context.services.wdlRuns;
  app.post<RouteTypes<typeof ROUTES.RunWdl>>(ROUTES.RunWdl.url, routeOptions(ROUTES.RunWdl), async (request) => {
    const body = request.body;
    return runs.start(request.scope, {
      sources: { main: body.source, mainName: body.source_name ?? 'main.wdl', files: body.files ?? {} },
      inputs: body.inputs ?? {},
      outputDir: body.output_dir,
      ...(body.task !== undefined ? { target: body.task } : {}),
      ...(body.task_name !== undefined ? { taskName: body.task_name } : {}),
    });
  });
  app.get<RouteTypes<typeof ROUTES.GetWdlRun>>(ROUTES.GetWdlRun.url, routeOptions(ROUTES.GetWdlRun), async (request) => ({
    task_id: request.params.task,
    ...(await runs.outputs(request.scope, request.params.task)),
  }));
}
