import type { FastifyInstance } from 'fastify';
import type { JobLogs } from '../../engine/index.js';
import type { Store } from '../../store/store.js';
import type { SignedLogLinks } from '../log-links.js';
import { ROUTES } from '../../contract/routes.js';
import { httpError } from '../errors.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/**
 * The bytes `Range: bytes=FIRST-[LAST]` or `bytes=-SUFFIX` asks for, of `total`: `null` when nothing of it exists
 * yet (416), undefined for a header that is absent or not one such range (answered whole, as RFC 9110 §14.2 lets a
 * server ignore a Range it does not support).
 */
export function requestedRange(header: string | undefined, total: number): { start: number; end: number } | null | undefined {
  const match = header === undefined ? null : /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || total === 0 ? null : { start: Math.max(0, total - suffix), end: total - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? total - 1 : Math.min(Number(match[2]), total - 1);
  if (match[2] !== '' && Number(match[2]) < start) return undefined;
  return start >= total ? null : { start, end };
}

/**
 * GET /logs/<job_id>/?expires=..&signature=.. — a job's log for a plain, unsigned GET (the link
 * is its own proof). `stream=stdout|stderr` picks one; by default both, stdout first.
 *
 * `Range: bytes=N-` reads from byte N on (206, with Content-Range), so that a client following a running job
 * (`gdflow task logs --follow`) fetches only what was written since its last look; a range that starts at or past
 * the end of what exists answers 416 InvalidRange, its Content-Range giving the size (`bytes *` slash size): nothing
 * new yet. The log is read through the engine's JobLogs, as one snapshot per request, so the bytes answered always
 * match the Content-Range even while the job writes.
 */
export function registerLogRoutes(app: FastifyInstance, deps: { store: Store; logs: JobLogs; links: SignedLogLinks }): void {
  app.get<RouteTypes<typeof ROUTES.Log>>(ROUTES.Log.url, routeOptions(ROUTES.Log), async (request, reply) => {
    const problem = await deps.links.check(request.params.job, request.query.expires, request.query.signature);
    if (problem) throw httpError('AccessDenied', problem);
    const job = await deps.store.getJob(request.params.job);
    if (!job) throw httpError('ResourceNotFound', `job '${request.params.job.slice(0, 200)}' no longer exists`);
    const log = await deps.logs.snapshot(job, request.query.stream);
    const total = log.size;
    const header = request.headers.range;
    const range = requestedRange(typeof header === 'string' ? header : undefined, total);
    reply.type('text/plain; charset=utf-8').header('accept-ranges', 'bytes');
    if (range === null) {
      reply.header('content-range', `bytes */${total}`);
      throw httpError('InvalidRange', `the log has ${total} bytes; the range '${String(header).slice(0, 100)}' starts at or past its end`);
    }
    if (range === undefined) return reply.header('content-length', total).send(log.read(0, total - 1));
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${total}`)
      .header('content-length', range.end - range.start + 1)
      .send(log.read(range.start, range.end));
  });
}
