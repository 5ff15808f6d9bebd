import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../app.js';
import { scopeOf } from './tools.js';

/** ActivateWorkflow (INTERFACE.md 4.15) and the task and job routes of docs/wire.md §2, also under wdl/tasks/ for gwc. */

type ProjectParams = { account: string; project: string };
type TaskParams = ProjectParams & { task: string };
type JobParams = TaskParams & { job: string };

export function registerTaskRoutes(app: FastifyInstance, context: RouteContext): void {
  const tasks = context.services.tasks;
  const base = '/accounts/:account/projects/:project';

  app.post<{ Params: ProjectParams }>(`${base}/tasks/`, { config: { operation: 'ActivateWorkflow' } }, async (request) =>
    tasks.activate(scopeOf(request, context), request.body),
  );

  for (const collection of ['tasks', 'wdl/tasks']) {
    const prefix = `${base}/${collection}`;
    app.get<{ Params: ProjectParams; Querystring: Record<string, unknown> }>(`${prefix}/`, { config: { operation: 'Task' } }, async (request) =>
      tasks.list(scopeOf(request, context), request.query),
    );
    app.get<{ Params: TaskParams }>(`${prefix}/:task/`, { config: { operation: 'Task' } }, async (request) => tasks.get(scopeOf(request, context), request.params.task));
    // Stop: a PUT with no body. Stopping an ended task is a harmless 200.
    app.put<{ Params: TaskParams }>(`${prefix}/:task/`, { config: { operation: 'Task' } }, async (request) => tasks.stop(scopeOf(request, context), request.params.task));
    app.delete<{ Params: TaskParams }>(`${prefix}/:task/`, { config: { operation: 'Task' } }, async (request, reply) => {
      await tasks.delete(scopeOf(request, context), request.params.task);
      return reply.code(200).send();
    });
    app.get<{ Params: TaskParams }>(`${prefix}/:task/jobs/`, { config: { operation: 'Job' } }, async (request) => tasks.jobs(scopeOf(request, context), request.params.task));
    app.get<{ Params: JobParams }>(`${prefix}/:task/jobs/:job/`, { config: { operation: 'Job' } }, async (request) =>
      tasks.jobInfo(scopeOf(request, context), request.params.task, request.params.job),
    );
    app.get<{ Params: JobParams }>(`${prefix}/:task/cmd/:job/`, { config: { operation: 'Job' } }, async (request) =>
      tasks.jobCommand(scopeOf(request, context), request.params.task, request.params.job),
    );
    app.get<{ Params: TaskParams }>(`${prefix}/:task/events/`, { config: { operation: 'Task' } }, async (request) => tasks.events(scopeOf(request, context), request.params.task));
  }
}
