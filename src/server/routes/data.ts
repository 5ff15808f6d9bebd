import type { FastifyInstance } from 'fastify';
import { DataChecksumError, DataTooLargeError } from '../../data/index.js';
import { getHeader } from '../../signing/index.js';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { routeOptions, type RouteTypes } from '../route-options.js';
import { httpError } from '../errors.js';

/**
 * The data store routes (docs/data.md), signed like every other route:
 *   PUT    /accounts/<a>/data/<path>           upload the body (any content type), atomically
 *   GET    /accounts/<a>/data/<path>           download
 *   HEAD   /accounts/<a>/data/<path>           size and time
 *   DELETE /accounts/<a>/data/<path>           delete
 *   GET    /accounts/<a>/data/?prefix=/dir/    list items below a prefix
 */
type DataParams = { account: string; '*': string };

export async function registerDataRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const data = context.services.data;
  // A scope of its own for the content-type parsers; registering it waits for nothing, so a callback plugin.
  await app.register((scoped, _options, registered) => {
    // Uploads stream to disk: the body reaches the handler unread, whatever its type and size.
    scoped.removeAllContentTypeParsers();
    scoped.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    scoped.get<RouteTypes<typeof ROUTES.ListData>>(ROUTES.ListData.url, routeOptions(ROUTES.ListData), async (request) => {
      const prefix = request.query.prefix ?? '/';
      return data.list(request.caller, request.params.account, prefix.startsWith('/') ? prefix : `/${prefix}`, request.query.limit ?? 10_000);
    });

    scoped.put<{ Params: DataParams }>(ROUTES.PutData.url, routeOptions(ROUTES.PutData), async (request) => {
      const body = (request.body ?? Buffer.alloc(0)) as NodeJS.ReadableStream | Buffer;
      try {
        return await data.upload(request.caller, request.params.account, `/${request.params['*']}`, body, getHeader(request.headers, 'content-md5'));
      } catch (error) {
        if (error instanceof DataChecksumError) throw httpError('InvalidDigest', error.message);
        if (error instanceof DataTooLargeError) throw httpError('EntityTooLarge', error.message);
        throw error;
      }
    });

    scoped.get<{ Params: DataParams }>(ROUTES.GetData.url, routeOptions(ROUTES.GetData), async (request, reply) => {
      const item = await data.download(request.caller, request.params.account, `/${request.params['*']}`);
      return reply.type('application/octet-stream').header('content-length', item.size).send(item.stream);
    });

    scoped.delete<{ Params: DataParams }>(ROUTES.DeleteData.url, routeOptions(ROUTES.DeleteData), async (request, reply) => {
      await data.delete(request.caller, request.params.account, `/${request.params['*']}`);
      return reply.code(200).send();
    });
    registered();
  });
}
