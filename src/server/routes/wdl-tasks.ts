import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/**
 * What `wdl/tasks/` has besides the task routes it shares with `tasks/` (routes/tasks.ts): the run of a stored WDL
 * workflow version, the list of the tasks restarted from one (`?source_id=`), and the restart with debug_params
 * (docs/wire.md §8, docs/wdl.md).
 */
export function registerWdlTaskRoutes(app: FastifyInstance, context: RouteContext): void {
  const { tasks, wdlTasks } = context.services;
  const r = ROUTES.WdlTasks;
  app.get<RouteTypes<typeof r.list>>(r.list.url, routeOptions(r.list), async (request) => {
    const { source_id: sourceId, ...query } = request.query;
    return sourceId === undefined || sourceId === '' ? tasks.list(request.scope, query) : wdlTasks.restartedFrom(request.scope, sourceId);
  });
  app.post<RouteTypes<typeof r.create>>(r.create.url, routeOptions(r.create), async (request) => wdlTasks.create(request.scope, request.body));
  app.put<RouteTypes<typeof r.restart>>(r.restart.url, routeOptions(r.restart), async (request) =>
    wdlTasks.restart(request.scope, request.params.task, request.body ?? {}),
  );
}
