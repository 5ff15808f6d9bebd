import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../../domain/tools/service.js';
import { callerOf, type RouteContext } from '../app.js';

/** INTERFACE.md 4.1–4.7: the seven tool operations. */

type ProjectParams = { account: string; project: string };
type ToolParams = ProjectParams & { tool: string };
type Query = Record<string, unknown>;
type ProjectRequest = FastifyRequest<{ Params: ProjectParams }>;
type ToolRequest = FastifyRequest<{ Params: ToolParams; Querystring: Query }>;

export function scopeOf(request: FastifyRequest<{ Params: ProjectParams }>, context: RouteContext): Scope {
  return { caller: callerOf(request), account: request.params.account, project: request.params.project, baseUrl: context.baseUrl(request) };
}

export function registerToolRoutes(app: FastifyInstance, context: RouteContext): void {
  const tools = context.services.tools;
  const base = '/accounts/:account/projects/:project';

  app.post<{ Params: ProjectParams }>(`${base}/tools/`, { config: { operation: 'CreateTool' } }, async (request, reply) => {
    await tools.create(scopeOf(request, context), request.body);
    return reply.code(200).send();
  });

  app.put<{ Params: ToolParams }>(`${base}/tools/:tool/`, { config: { operation: 'PutTool' } }, async (request, reply) => {
    await tools.put(scopeOf(request, context), request.params.tool, request.body);
    return reply.code(200).send();
  });

  app.delete<{ Params: ToolParams; Querystring: Query }>(`${base}/tools/:tool/`, { config: { operation: 'DeleteTool' } }, async (request, reply) => {
    await tools.delete(scopeOf(request, context), request.params.tool, request.query);
    return reply.code(200).send();
  });

  // Reads of definitions: their answers are kept until the next write (see ReadCache).
  const read = context.cachedRead;

  app.get<{ Params: ProjectParams }>(`${base}/tools/`, { config: { operation: 'ListTool' } }, read((request: ProjectRequest) =>
    tools.list(scopeOf(request, context)),
  ));

  app.get<{ Params: ToolParams; Querystring: Query }>(`${base}/tools/:tool/`, { config: { operation: 'GetTool' } }, read((request: ToolRequest) =>
    tools.get(scopeOf(request, context), request.params.tool, request.query),
  ));

  app.get<{ Params: ToolParams; Querystring: Query }>(`${base}/toolparameters/:tool/`, { config: { operation: 'GetToolParameterTemplate' } }, read((request: ToolRequest) =>
    tools.parameterTemplate(scopeOf(request, context), request.params.tool, request.query),
  ));

  app.get<{ Params: ToolParams; Querystring: Query }>(`${base}/tooldetails/:tool/`, { config: { operation: 'GetToolDetails' } }, read((request: ToolRequest) =>
    tools.details(scopeOf(request, context), request.params.tool, request.query),
  ));
}
