/**
 * GET /openapi.json: the OpenAPI 3.1 document of the API, built from the route table (contract/routes.ts), so that
 * it cannot drift from what the server validates. Unsigned. `gdflow openapi` prints the same document, and
 * docs/api-reference.md is its rendering (openapi-markdown.ts).
 */
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../contract/common.js';
import { ga4ghError } from '../contract/tes.js';
import { MAX_JSON_DEPTH } from '../contract/limits.js';
import { allRoutes, ROUTES, type RouteEntry } from '../contract/routes.js';
import { packageVersion } from '../package-root.js';
import { routeOptions } from './route-options.js';

type Json = Record<string, unknown>;

/** A JSON Schema as the route table writes it: the members the reference page reads, the rest passed through. */
export interface SchemaObject {
  readonly type?: string | readonly string[];
  readonly anyOf?: readonly SchemaObject[];
  readonly items?: SchemaObject;
  readonly pattern?: string;
  readonly properties?: Readonly<Record<string, SchemaObject>>;
  readonly [keyword: string]: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: SchemaObject;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  tags: string[];
  'x-genedock-operation': string;
  parameters: ParameterObject[];
  responses: Json;
  requestBody?: { required: boolean; content: Record<string, { schema: SchemaObject }> };
  security: Array<Record<string, string[]>>;
}

/** The OpenAPI 3.1 document, as far as gdflow writes one. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<string, { type: string; description: string; [member: string]: string }>;
  };
}

/** `/tools/:tool/` → `/tools/{tool}/`; the data routes' `*` → `{path}`. */
function openApiPath(url: string): string {
  // `::` is a literal colon (TES's `/tasks/{id}:cancel`).
  return url
    .replace(/\([^)]*\)/g, '')
    .replace(/::/g, '\0')
    .replace(/:([A-Za-z_]+)/g, '{$1}')
    .replace(/\0/g, ':')
    .replace(/\*$/, '{path}');
}

function parameters(entry: RouteEntry): ParameterObject[] {
  const out: ParameterObject[] = [];
  const params = entry.schema.params as { properties?: Record<string, SchemaObject> } | undefined;
  for (const name of entry.url
    .replace(/\([^)]*\)/g, '')
    .replace(/::/g, '\0')
    .match(/:([A-Za-z_]+)/g)
    ?.map((p) => p.slice(1)) ?? []) {
    out.push({ name, in: 'path', required: true, schema: params?.properties?.[name] ?? { type: 'string' } });
  }
  if (entry.url.endsWith('*'))
    out.push({
      name: 'path',
      in: 'path',
      required: true,
      description: entry.pathDescription ?? "the data item's path below the account",
      schema: { type: 'string' },
    });
  const query = entry.schema.querystring as { properties?: Record<string, SchemaObject>; required?: readonly string[] } | undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    out.push({ name, in: 'query', required: query?.required?.includes(name) ?? false, schema });
  }
  return out;
}

function responses(entry: RouteEntry): Json {
  const ok = entry.schema.response?.[200] as Json | undefined;
  const success: Json =
    ok === undefined
      ? { description: entry.raw ? 'the content (not JSON)' : 'the answer' }
      : ok.type === 'null'
        ? { description: 'an empty body' }
        : { description: 'the answer', content: { 'application/json': { schema: ok } } };
  if (entry.auth === 'ga4gh' || entry.url.startsWith('/ga4gh/')) {
    const ga4gh = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Ga4ghError' } } } };
    return { 200: success, '4XX': { description: 'a GA4GH error (docs/ga4gh.md)', ...ga4gh }, '5XX': { description: 'a server error', ...ga4gh } };
  }
  const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
  return {
    200: success,
    '4XX': { description: `a GeneDock error of the operation "${entry.operation}" (docs/api.md)`, ...error },
    '5XX': { description: 'a server error (its message carries the request id)', ...error },
  };
}

let built: OpenApiDocument | undefined;

export function openApiDocument(): OpenApiDocument {
  if (built) return built;
  const paths: Record<string, Record<string, OperationObject>> = {};
  for (const [id, entry] of allRoutes()) {
    const path = openApiPath(entry.url);
    const requestBody: OperationObject['requestBody'] = entry.schema.body
      ? { required: false, content: { 'application/json': { schema: entry.schema.body as SchemaObject } } }
      : entry.raw && entry.method === 'PUT'
        ? { required: false, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } }
        : undefined;
    const operation: OperationObject = {
      operationId: id.replace(/\./g, '_'),
      summary: entry.summary,
      tags: [entry.tag],
      'x-genedock-operation': entry.operation,
      parameters: parameters(entry),
      responses: responses(entry),
      ...(requestBody ? { requestBody } : {}),
      security: entry.auth === false ? [] : entry.auth === 'ga4gh' ? [{ GeneDock: [] }, { Basic: [] }, { Bearer: [] }] : [{ GeneDock: [] }],
    };
    (paths[path] ??= {})[entry.method.toLowerCase()] = operation;
  }
  built = {
    openapi: '3.1.0',
    info: {
      title: 'gdflow API',
      version: packageVersion(),
      description:
        'The GeneDock tool and workflow API as gdflow serves it (INTERFACE.md, docs/api.md). Every path also answers ' +
        `without its trailing slash. JSON bodies: Content-Type application/json, nested at most ${MAX_JSON_DEPTH} deep.`,
    },
    tags: [...new Set(allRoutes().map(([, e]) => e.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ErrorBody: errorBody, Ga4ghError: ga4ghError },
      securitySchemes: {
        Basic: { type: 'http', scheme: 'basic', description: 'GA4GH routes only: an access key id and secret (docs/ga4gh.md)' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'GA4GH routes only: a token of `gdflow admin create-token` (docs/ga4gh.md)' },
        GeneDock: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            '`GeneDock <access key id>:<signature>`: base64 HMAC-SHA1, keyed with the secret, of METHOD, Content-MD5, Content-Type, ' +
            'Date (or x-gd-date) and the x-gd-* headers, one per line, then the percent-decoded request target with its query items sorted (docs/wire.md §1).',
        },
      },
    },
  };
  return built;
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  const body = JSON.stringify(openApiDocument());
  app.get(ROUTES.OpenApi.url, routeOptions(ROUTES.OpenApi), async (_request, reply) => reply.type('application/json').send(body));
}
