import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Ajv } from 'ajv';
import secureJson from 'secure-json-parse';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { invalid } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { newRequestId } from '../ids.js';
import { contentMd5, getHeader } from '../signing/index.js';
import type { AccessKey } from '../store/store.js';
import type { Metrics } from '../metrics/metrics.js';
import { registerAuditHook } from './audit-hook.js';
import { registerMetricsRoute } from './metrics-route.js';
import { authenticationPlugin, signedCaller } from './plugins/authentication.js';
import { emptySegment } from './request-target.js';
import { ReadCache, cachedReadHandler } from './read-cache.js';
import type { RouteContext } from './routes/context.js';
import { COMMON_ERRORS, httpError, renderSpec, type ErrorSpec } from './errors.js';
import { errorHandler, sendError, writeRawError } from './error-handler.js';
import { silentLogger, type Logger } from './logger.js';
import './fastify-types.js';
import type { JobLogs } from '../engine/index.js';
import type { SignedLogLinks } from './log-links.js';
import { parseMultipartBody } from './multipart.js';
import type { SignedWdlFileLinks } from './wdl-file-links.js';
import { registerWdlRoutes } from './routes/wdl.js';
import { registerWdlTaskRoutes } from './routes/wdl-tasks.js';
import { registerWdlRunRoutes } from './routes/wdl-runs.js';
import { registerConsoleRoutes } from './routes/console.js';
import { registerCwlImportRoutes } from './routes/cwl-import.js';
import { registerCwlRunRoutes } from './routes/cwl-runs.js';
import { registerDataRoutes } from './routes/data.js';
import { registerLogRoutes } from './routes/logs.js';
import { registerMiscRoutes } from './routes/misc.js';
import { registerTaskRoutes } from './routes/tasks.js';
import { registerToolRoutes } from './routes/tools.js';
import { registerWorkflowRoutes } from './routes/workflows.js';
import { registerTesRoutes } from './routes/tes.js';
import { registerWesRoutes } from './routes/wes.js';
import { MAX_JSON_DEPTH } from '../contract/limits.js';
import { allRoutes } from '../contract/routes.js';
import { registerOpenApiRoute } from './openapi.js';
import { mayHoldUnsafeIntegers, parseExactJson, stringifyExactJson } from '../contract/exact-json.js';

export interface AppOptions {
  services: Services;
  logLinks: SignedLogLinks;
  /** The signed links of WDL documents, which GET /wdl-files/... checks. */
  wdlFileLinks: SignedWdlFileLinks;
  /** The jobs' logs, which GET /logs/<job>/ serves. */
  jobLogs: JobLogs;
  lookupKey: (id: string) => Promise<AccessKey | undefined>;
  /** The key without waiting when it is cached (see VerifyOptions.peekKey). */
  peekKey?: (id: string) => AccessKey | null | undefined;
  /** The store cache's generation (Store.cacheGeneration): with it, definition reads keep their answers. */
  cacheGeneration?: () => number;
  /** Largest JSON body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Allowed distance of a request's Date from the server clock, in seconds (default 900). */
  clockSkewSeconds?: number;
  /** Base URL for links in responses; default: the request's protocol and Host. */
  publicUrl?: string;
  /**
   * Addresses of the reverse proxies whose X-Forwarded-For/-Proto/-Host are believed (config.trustedProxies): then
   * the client's address, and the scheme and host of links, are the ones the proxy forwarded. Default: none.
   */
  trustProxy?: string[];
  /** Where access lines and errors go (default: nowhere). */
  logger?: Logger;
  /** Injectable clock (milliseconds), for tests of the Date window. */
  now?: () => number;
  /** What /healthz adds to its answer (the server's role, its worker's state). */
  health?: () => Record<string, unknown>;
  /** GET /metrics and the HTTP metrics (absent: neither). */
  metrics?: { metrics: Metrics; token: string };
}

function clientErrorSpec(error: NodeJS.ErrnoException): { spec: ErrorSpec; reason: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { spec: COMMON_ERRORS.HeadersTooLarge, reason: 'the request headers exceed 16 KiB' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { spec: COMMON_ERRORS.RequestTimeout, reason: 'the request was not received in time' };
    case 'HPE_INVALID_METHOD':
      return { spec: COMMON_ERRORS.MethodNotAllowed, reason: 'the request method is not a known HTTP method' };
    default:
      return { spec: COMMON_ERRORS.MalformedRequest, reason: `the HTTP framing is invalid (${error.code ?? 'parse error'})` };
  }
}

/** The request id travels on the raw request from the server's handler to Fastify's genReqId. */
const REQUEST_ID = Symbol('gdflow.requestId');
type RawWithId = IncomingMessage & { [REQUEST_ID]?: string };

function sendRawError(res: ServerResponse, spec: ErrorSpec, reason: string, requestId: string): void {
  const body = JSON.stringify(renderSpec(spec, reason));
  res.writeHead(spec.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-gd-requestid': requestId });
  res.end(body);
}

/**
 * A node:http server that gives every request its id (and the `x-gd-requestid` header) before
 * Fastify sees it, refuses a request without Host, and answers framing problems with GeneDock
 * JSON errors instead of Node's bare ones.
 */
function serverFactory(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const withId = (req: IncomingMessage, res: ServerResponse): void => {
    const id = newRequestId();
    (req as RawWithId)[REQUEST_ID] = id;
    res.setHeader('x-gd-requestid', id);
    if (req.headers.host === undefined) sendRawError(res, COMMON_ERRORS.MalformedRequest, 'the Host header is missing', id);
    else handler(req, res);
  };
  // keepAliveTimeout: Node's 5 s closes an idle connection on a timer; when the event loop has been busy longer than
  // that (a worker submitting hundreds of jobs on a loaded machine), the late timer closes a connection that a
  // client's next request has already reached, and the client reads ECONNRESET. Clients close idle connections
  // themselves (undici after 4 s); the server's 65 s only bounds the ones that do not.
  const server = createServer({ requireHostHeader: false, maxHeaderSize: 16 * 1024, keepAliveTimeout: 65_000 }, withId);
  server.on('checkContinue', (req, res) => {
    res.writeContinue();
    withId(req, res);
  });
  server.on('checkExpectation', (req, res) => {
    sendRawError(
      res,
      COMMON_ERRORS.ExpectationFailed,
      `Expect '${String(req.headers.expect).slice(0, 64)}' is not supported; only 100-continue is`,
      newRequestId(),
    );
  });
  return server;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger();
  const handleError = errorHandler(logger);
  const app = Fastify({
    logger: false,
    // The id the server factory gave the request (app.inject() bypasses it: then a new one).
    genReqId: (req) => (req as RawWithId)[REQUEST_ID] ?? newRequestId(),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy: trustProxyOption(options.trustProxy),
    routerOptions: {
      // Clients configured with a trailing `/` send `//accounts/...`; every route also ends in `/`
      // and is served without it too, never with a redirect (clients would not re-sign).
      ignoreDuplicateSlashes: true,
      ignoreTrailingSlash: true,
      maxParamLength: 1000,
    },
    serverFactory,
    clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const { spec, reason } = clientErrorSpec(error);
      writeRawError(socket, spec, reason);
      socket.destroy();
    },
    frameworkErrors(error, request, reply) {
      handleError(error, request, reply);
    },
  });

  // Path parameters and queries arrive as text and are read as the schema's types ("2" is the integer 2); a JSON
  // body is taken as sent: a tool_version of "2" or 2.5 is not an integer (contract/routes.ts).
  const textParts = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false, strict: false, verbose: true });
  const bodies = new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false, strict: false, verbose: true });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodies : textParts).compile(schema));
  // The answers' schemas document them (GET /openapi.json); answers are written as the domain made them.
  app.setSerializerCompiler(() => (data) => stringifyExactJson(data));

  app.decorateRequest('rawBody', null);

  // JSON bodies are parsed here so that Content-MD5 can be checked against the bytes received.
  // Bodies of JSON routes must say they are JSON (a charset is fine); a body of another type is refused in the
  // operation's error form, whatever it holds. A body-less request needs no Content-Type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
  // Forms only where a route's config says so (the wdl/ routes, WES's POST /runs); anywhere else one is refused like any non-JSON body.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, parseMultipartBody);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    if (body.length === 0) return parseJsonBody(request, body, done);
    const type = request.headers['content-type'];
    done(
      invalid(
        type === undefined
          ? 'the body has no Content-Type; send it as application/json'
          : `the Content-Type '${String(type).slice(0, 100)}' is not application/json`,
      ),
    );
  });

  // Signed routes (all but those marked auth: false) verify the signature first, and carry the caller and scope.
  await app.register(authenticationPlugin, {
    lookupKey: options.lookupKey,
    peekKey: options.peekKey,
    clockSkewSeconds: options.clockSkewSeconds ?? 900,
    now,
    publicUrl: options.publicUrl,
    tokens: {
      lookupToken: (id) => options.services.store.getAccessToken(id),
      ...(options.services.store.peekAccessToken ? { peekToken: (id: string) => options.services.store.peekAccessToken!(id) } : {}),
    },
  });

  const documented = new Set(allRoutes().flatMap(([, e]) => [`${e.method} ${e.url}`, ...(e.method === 'GET' ? [`HEAD ${e.url}`] : [])]));
  app.addHook('onRoute', (route) => {
    // Every route is in the API table, so in GET /openapi.json: a new route without an entry stops the server here.
    for (const method of [route.method].flat()) {
      if (!documented.has(`${method} ${route.url}`)) throw new Error(`route ${method} ${route.url} is not in the API table (src/contract/routes.ts)`);
    }
  });

  // The access log costs a little on every request: only hook it in when it is written.
  if (logger.isLevelEnabled('info')) {
    app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      const account = signedCaller(request)?.accountName;
      logger.info(
        { reqId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime, account, ip: request.ip },
        'request',
      );
    });
  }

  registerAuditHook(app, options.services.store, logger);
  if (options.metrics) registerMetricsRoute(app, options.metrics);

  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      COMMON_ERRORS.ResourceNotFound,
      emptySegment(request.url) ?? `there is no route for ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`,
    );
  });

  const readCache = options.cacheGeneration ? new ReadCache(options.cacheGeneration) : undefined;
  const context: RouteContext = {
    services: options.services,
    cachedRead: (read) => cachedReadHandler(readCache, read),
    health: options.health ?? (() => ({})),
    baseUrl: (request) => options.publicUrl || `${request.protocol}://${request.host}`,
  };
  registerToolRoutes(app, context);
  registerWorkflowRoutes(app, context);
  registerTaskRoutes(app, context);
  registerCwlRunRoutes(app, context);
  registerCwlImportRoutes(app, context);
  registerWdlRoutes(app, context, options.wdlFileLinks);
  registerWdlTaskRoutes(app, context);
  registerWdlRunRoutes(app, context);
  registerLogRoutes(app, { store: options.services.store, logs: options.jobLogs, links: options.logLinks });
  await registerDataRoutes(app, context);
  registerMiscRoutes(app, context);
  registerTesRoutes(app, context);
  registerWesRoutes(app, context);
  registerOpenApiRoute(app);
  registerConsoleRoutes(app);
  return app;
}

/** Fastify's trustProxy: the proxies' addresses, or false (the forwarded headers are ignored). */
export function trustProxyOption(addresses: string[] | undefined): string[] | false {
  return addresses && addresses.length > 0 ? addresses : false;
}

function parseJsonBody(request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void): void {
  request.rawBody = body;
  const md5 = getHeader(request.headers, 'content-md5');
  if (md5 !== undefined && md5 !== contentMd5(body)) {
    done(httpError('InvalidDigest', `Content-MD5 '${md5.slice(0, 64)}' is not the base64 MD5 of the ${body.length}-byte body`));
    return;
  }
  if (body.length === 0) {
    done(null, undefined);
    return;
  }
  const { depth, nul } = scanJson(body);
  if (nul) {
    // PostgreSQL cannot store one, and no name, text or path needs one.
    done(invalid('the request body holds a NUL character (\\u0000), which no name, text or path may contain'));
    return;
  }
  if (depth > MAX_JSON_DEPTH) {
    done(invalid(`the request body nests arrays and objects ${depth > 10_000 ? 'more than 10000' : depth} deep; the limit is ${MAX_JSON_DEPTH}`));
    return;
  }
  try {
    // __proto__ and constructor.prototype keys are refused: they could poison merged objects.
    const text = body.toString('utf8');
    const parsed: unknown = secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' });
    // Read again where an integer beyond 2^53 may be, to keep it exact (CWL documents and job objects).
    done(null, mayHoldUnsafeIntegers(text) ? parseExactJson(text) : parsed);
  } catch (error) {
    done(invalid(`the request body is not valid JSON (${error instanceof Error ? error.message : String(error)})`));
  }
}

/**
 * What a JSON text holds that its parse would meet too late: how deeply arrays and objects nest (brackets inside
 * strings do not count; a body of a million `[` would otherwise exhaust the stack of every recursive walk after
 * the parser; counting stops past 10000), and whether a string holds the escape of a NUL character.
 */
export function scanJson(body: Buffer): { depth: number; nul: boolean } {
  let depth = 0;
  let deepest = 0;
  let nul = false;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === 0x5c) {
        // an escape: \u0000 is a NUL; any other escaped character is skipped
        if (body[i + 1] === 0x75 && body.toString('latin1', i + 2, i + 6) === '0000') nul = true;
        i++;
      } else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest && (deepest = depth) > 10_000) return { depth: deepest, nul };
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { depth: deepest, nul };
}
