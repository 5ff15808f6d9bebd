import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Layout } from '../../engine/layout.js';
import type { Store } from '../../store/store.js';
import type { SignedLogLinks } from '../log-links.js';
import { ROUTES } from '../../contract/routes.js';
import { httpError } from '../errors.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/**
 * GET /logs/<job_id>/?expires=..&signature=.. — a job's log for a plain, unsigned GET (the link
 * is its own proof). `stream=stdout|stderr` picks one; by default both, stdout first.
 */
export function registerLogRoutes(app: FastifyInstance, deps: { store: Store; layout: Layout; links: SignedLogLinks }): void {
  app.get<RouteTypes<typeof ROUTES.Log>>(ROUTES.Log.url, routeOptions(ROUTES.Log), async (request, reply) => {
    const problem = await deps.links.check(request.params.job, request.query.expires, request.query.signature);
    if (problem) throw httpError('AccessDenied', problem);
    const job = await deps.store.getJob(request.params.job);
    if (!job) throw httpError('ResourceNotFound', `job '${request.params.job.slice(0, 200)}' no longer exists`);
    const stream = request.query.stream;
    const files = [
      ...(stream === undefined || stream === 'stdout' ? [deps.layout.stdoutLog(job.taskId, job.nodeId)] : []),
      ...(stream === undefined || stream === 'stderr' ? [deps.layout.stderrLog(job.taskId, job.nodeId)] : []),
    ];
    const present = [];
    for (const file of files) if (await access(file).then(() => true, () => false)) present.push(file);
    const out = new PassThrough();
    (async () => {
      for (const file of present) {
        await new Promise<void>((resolve, reject) => {
          const input = createReadStream(file);
          input.on('error', reject);
          input.on('end', resolve);
          input.pipe(out, { end: false });
        });
      }
      out.end();
    })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
    return reply.type('text/plain; charset=utf-8').send(out);
  });
}
