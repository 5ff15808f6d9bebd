import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import { queryVersion } from '../../domain/names.js';
import type { RouteContext } from './context.js';
import { httpError } from '../errors.js';
import { routeOptions, type RouteTypes } from '../route-options.js';
import type { SignedWdlFileLinks } from '../wdl-file-links.js';

/**
 * GeneDock's WDL workflow and tool routes as gdpy and gwc use them (docs/wire.md §8, docs/wdl.md), and the unsigned
 * downloads of their documents by the signed links a get answers.
 */
export function registerWdlRoutes(app: FastifyInstance, context: RouteContext, links: SignedWdlFileLinks): void {
  const wdl = context.services.wdlWorkflows;
  const r = ROUTES.Wdl;

  app.get<RouteTypes<typeof r.lookUp>>(r.lookUp.url, routeOptions(r.lookUp), async (request) =>
    wdl.lookUp(request.scope, 'workflow', { name: request.query.name, version: queryVersion(request.query.version) }),
  );
  app.post<RouteTypes<typeof r.create>>(r.create.url, routeOptions(r.create), async (request) => wdl.create(request.scope, 'workflow', request.body));
  app.get<RouteTypes<typeof r.get>>(r.get.url, routeOptions(r.get), async (request) =>
    wdl.get(request.scope, 'workflow', request.params.workflow, queryVersion(request.query.workflow_version)),
  );
  app.put<RouteTypes<typeof r.update>>(r.update.url, routeOptions(r.update), async (request) =>
    wdl.update(request.scope, 'workflow', request.params.workflow, request.body),
  );
  app.delete<RouteTypes<typeof r.delete>>(r.delete.url, routeOptions(r.delete), async (request, reply) => {
    await wdl.delete(request.scope, 'workflow', request.params.workflow, queryVersion(request.query.workflow_version));
    return reply.code(200).send();
  });

  app.get<RouteTypes<typeof r.toolList>>(r.toolList.url, routeOptions(r.toolList), async (request) => {
    const tools = await wdl.lookUp(request.scope, 'tool', {});
    return { tool_list: tools, count: tools.length };
  });
  app.post<RouteTypes<typeof r.toolCreate>>(r.toolCreate.url, routeOptions(r.toolCreate), async (request) => wdl.create(request.scope, 'tool', request.body));
  app.get<RouteTypes<typeof r.toolGet>>(r.toolGet.url, routeOptions(r.toolGet), async (request) => ({
    tools: await wdl.getByName(request.scope, 'tool', request.params.tool, queryVersion(request.query.tool_version)),
  }));
  app.put<RouteTypes<typeof r.toolUpdate>>(r.toolUpdate.url, routeOptions(r.toolUpdate), async (request) => {
    const id = await wdl.toolId(request.scope, request.params.tool);
    return wdl.update(request.scope, 'tool', id, request.body);
  });
  app.delete<RouteTypes<typeof r.toolDelete>>(r.toolDelete.url, routeOptions(r.toolDelete), async (request, reply) => {
    await wdl.deleteByName(request.scope, 'tool', request.params.tool, queryVersion(request.query.tool_version));
    return reply.code(200).send();
  });

  // Unsigned: the link is its own proof (as /logs/).
  app.get<RouteTypes<typeof r.file>>(r.file.url, routeOptions(r.file), async (request, reply) => {
    const { version, part } = request.params;
    const problem = await links.check(version, part, request.query.expires, request.query.signature);
    if (problem) throw httpError('AccessDenied', problem);
    const files = await context.services.store.wdl.wdlVersionFiles(version);
    if (!files || (part === 'dependencies' && files.dependencies === null))
      throw httpError('ResourceNotFound', `the WDL version '${version.slice(0, 64)}' or its ${part} no longer exists`);
    const [data, name, type] =
      part === 'source'
        ? [Buffer.from(files.source, 'utf8'), files.sourceName, 'text/plain; charset=utf-8']
        : [files.dependencies!, files.dependenciesName ?? 'dependencies.zip', 'application/zip'];
    return reply.type(type).header('content-disposition', `attachment; filename="${name}"`).header('content-length', data.length).send(data);
  });
}
