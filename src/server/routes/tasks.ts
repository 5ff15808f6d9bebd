import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/** ActivateWorkflow (INTERFACE.md 4.15) and the task and job routes of docs/wire.md §2, also under wdl/tasks/ for gwc. */

export function registerTaskRoutes(app: FastifyInstance, context: RouteContext): void {
  const tasks = context.services.tasks;

  app.post<RouteTypes<typeof ROUTES.ActivateWorkflow>>(ROUTES.ActivateWorkflow.url, routeOptions(ROUTES.ActivateWorkflow), async (request) =>
    tasks.activate(request.scope, request.body),
  );

  app.get<RouteTypes<typeof ROUTES.Tasks.list>>(ROUTES.Tasks.list.url, routeOptions(ROUTES.Tasks.list), async (request) =>
    tasks.list(request.scope, request.query),
  );
  // The list under wdl/tasks/ also answers ?source_id= (routes/wdl-tasks.ts).
  for (const r of [ROUTES.Tasks, ROUTES.WdlTasks]) {
    app.get<RouteTypes<typeof r.get>>(r.get.url, routeOptions(r.get), async (request) => tasks.get(request.scope, request.params.task));
    // Stop: a PUT with no body. Stopping an ended task is a harmless 200.
    app.put<RouteTypes<typeof r.stop>>(r.stop.url, routeOptions(r.stop), async (request) => tasks.stop(request.scope, request.params.task));
    app.delete<RouteTypes<typeof r.delete>>(r.delete.url, routeOptions(r.delete), async (request, reply) => {
      await tasks.delete(request.scope, request.params.task);
      return reply.code(200).send();
    });
    app.get<RouteTypes<typeof r.jobs>>(r.jobs.url, routeOptions(r.jobs), async (request) => tasks.jobs(request.scope, request.params.task));
    app.get<RouteTypes<typeof r.job>>(r.job.url, routeOptions(r.job), async (request) => tasks.jobInfo(request.scope, request.params.task, request.params.job));
    app.get<RouteTypes<typeof r.command>>(r.command.url, routeOptions(r.command), async (request) =>
      tasks.jobCommand(request.scope, request.params.task, request.params.job),
    );
    app.get<RouteTypes<typeof r.events>>(r.events.url, routeOptions(r.events), async (request) => tasks.events(request.scope, request.params.task));
    app.get<RouteTypes<typeof r.outputs>>(r.outputs.url, routeOptions(r.outputs), async (request) => tasks.outputs(request.scope, request.params.task));
    app.get<RouteTypes<typeof r.explain>>(r.explain.url, routeOptions(r.explain), async (request) =>
      tasks.explainJob(request.scope, request.params.task, request.params.job),
    );
    app.post<RouteTypes<typeof r.rerun>>(r.rerun.url, routeOptions(r.rerun), async (request) => tasks.rerun(request.scope, request.params.task));
  }
}
