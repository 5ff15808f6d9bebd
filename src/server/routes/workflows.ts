import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RouteContext } from '../app.js';
import { scopeOf } from './tools.js';

/** INTERFACE.md 4.8–4.14, the run-template update of docs/wire.md §2, and the graph view. */

type ProjectParams = { account: string; project: string };
type WorkflowParams = ProjectParams & { workflow: string };
type Query = Record<string, unknown>;
type ProjectRequest = FastifyRequest<{ Params: ProjectParams }>;
type WorkflowRequest = FastifyRequest<{ Params: WorkflowParams; Querystring: Query }>;

export function registerWorkflowRoutes(app: FastifyInstance, context: RouteContext): void {
  const workflows = context.services.workflows;
  const base = '/accounts/:account/projects/:project';
  // Reads of definitions: their answers are kept until the next write (see ReadCache).
  const read = context.cachedRead;

  app.post<{ Params: ProjectParams }>(`${base}/workflows/`, { config: { operation: 'CreateWorkflow' } }, async (request, reply) => {
    await workflows.create(scopeOf(request, context), request.body);
    return reply.code(200).send();
  });

  app.put<{ Params: WorkflowParams }>(`${base}/workflows/:workflow/`, { config: { operation: 'PutWorkflow' } }, async (request, reply) => {
    await workflows.put(scopeOf(request, context), request.params.workflow, request.body);
    return reply.code(200).send();
  });

  app.get<{ Params: WorkflowParams; Querystring: Query }>(`${base}/workflows/:workflow/`, { config: { operation: 'GetWorkflow' } }, read((request: WorkflowRequest) =>
    workflows.get(scopeOf(request, context), request.params.workflow, request.query),
  ));

  app.delete<{ Params: WorkflowParams; Querystring: Query }>(`${base}/workflows/:workflow/`, { config: { operation: 'DeleteWorkflow' } }, async (request, reply) => {
    await workflows.delete(scopeOf(request, context), request.params.workflow, request.query);
    return reply.code(200).send();
  });

  app.get<{ Params: ProjectParams }>(`${base}/workflows/`, { config: { operation: 'ListWorkflow' } }, read((request: ProjectRequest) =>
    workflows.list(scopeOf(request, context)),
  ));

  app.get<{ Params: WorkflowParams; Querystring: Query }>(`${base}/workflows/:workflow/graph/`, { config: { operation: 'GetWorkflowGraph' } }, read((request: WorkflowRequest) =>
    workflows.graph(scopeOf(request, context), request.params.workflow, request.query),
  ));

  app.get<{ Params: ProjectParams }>(`${base}/executable-workflows/`, { config: { operation: 'ListExecutableWorkflow' } }, read((request: ProjectRequest) =>
    workflows.listExecutable(scopeOf(request, context)),
  ));

  app.get<{ Params: WorkflowParams; Querystring: Query }>(`${base}/executable-workflows/:workflow/`, { config: { operation: 'GetExecutableWorkflow' } }, read((request: WorkflowRequest) =>
    workflows.getExecutable(scopeOf(request, context), request.params.workflow, request.query),
  ));

  app.put<{ Params: WorkflowParams }>(`${base}/executable-workflows/:workflow/`, { config: { operation: 'SetRunTemplate' } }, async (request, reply) => {
    await workflows.setRunTemplate(scopeOf(request, context), request.params.workflow, request.body);
    return reply.code(200).send();
  });

  // gwc 0.4.4 also looks for WDL workflows (docs/wire.md §7); gdflow has none, so these answer an
  // empty JSON list, never an object or a 5xx.
  app.get<{ Params: ProjectParams }>(`${base}/wdl/workflow/`, { config: { operation: 'ListWorkflow' } }, async (request) => {
    scopeOf(request, context);
    return [];
  });
  app.get<{ Params: ProjectParams }>(`${base}/wdl/workflow/:workflow/`, { config: { operation: 'GetWorkflow' } }, async (request) => {
    scopeOf(request, context);
    return [];
  });
}
