/**
 * The web console (docs/console.md) at /console/: the page and the files `npm run build` made in dist/console/
 * (scripts/build-console.mjs), read once when the server starts and served from memory, gzipped when the browser
 * takes it. Unsigned (the console signs its own API requests in the browser). Every answer carries a strict
 * Content-Security-Policy: scripts, styles and requests from this origin only, no inline script or style sheet,
 * no framing. Served by every process that serves the API; a worker (--role worker) serves none.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import { packageRoot } from '../../package-root.js';
import { httpError } from '../errors.js';
import { routeOptions } from '../route-options.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
  etag: string;
  cache: string;
}

const loaded = new Map<string, Map<string, Asset>>();

/** The console's built files by name (read once per process); empty when it was not built. */
export function loadConsoleAssets(dir = join(packageRoot(), 'dist', 'console')): Map<string, Asset> {
  let assets = loaded.get(dir);
  if (assets) return assets;
  assets = new Map<string, Asset>();
  loaded.set(dir, assets);
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    const type = TYPES[extname(name)];
    if (!type || !statSync(file).isFile()) continue;
    const body = readFileSync(file);
    // Bundles are named by their content's hash (main-ABC123.js): cached for good. The page and the icon are not.
    const hashed = /-[A-Z0-9]{8}\.(js|css)(\.map|\.LEGAL\.txt)?$/.test(name);
    const compressible = type.startsWith('text/') || type.startsWith('image/svg') || type.startsWith('application/json');
    assets.set(name, {
      body,
      ...(compressible && body.length > 1024 ? { gzipped: gzipSync(body, { level: 9 }) } : {}),
      type,
      etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`,
      cache: hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  }
  return assets;
}

export function registerConsoleRoutes(app: FastifyInstance, assets: Map<string, Asset> = loadConsoleAssets()): void {
  const send = (request: FastifyRequest, reply: FastifyReply, name: string) => {
    const asset = assets.get(name);
    if (!asset) {
      throw httpError(
        'ResourceNotFound',
        assets.size === 0 ? 'the console is not built here (npm run build makes it)' : `the console has no file '${name.slice(0, 200)}'`,
      );
    }
    reply.headers({ ...HEADERS, 'content-type': asset.type, 'cache-control': asset.cache, etag: asset.etag, vary: 'Accept-Encoding' });
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    const gzip = asset.gzipped && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? asset.gzipped : asset.body);
  };
  app.get(ROUTES.ConsoleRoot.url, routeOptions(ROUTES.ConsoleRoot), async (_request, reply) => reply.redirect('/console/', 302));
  app.get(ROUTES.ConsolePage.url, routeOptions(ROUTES.ConsolePage), async (request, reply) => send(request, reply, 'index.html'));
  app.get<{ Params: { '*': string } }>(ROUTES.ConsoleFile.url, routeOptions(ROUTES.ConsoleFile), async (request, reply) =>
    send(request, reply, request.params['*'] || 'index.html'),
  );
}
