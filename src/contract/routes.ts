/**
 * Every route of the API in one table: its method and path, the GeneDock operation whose error form it answers
 * in (server/errors.ts), and the JSON Schemas of its parameters, query, body and answer. The server registers
 * each route from its entry (Fastify validates requests with the schemas, json-schema-to-ts types the handlers),
 * the SDK takes its wire types from the same schemas (client/types.ts), and GET /openapi.json is built from this
 * table (server/openapi.ts). A route the server registers without an entry here fails a test.
 */
import { errorBody } from './common.js';
import { DATA_ROUTES } from './routes/data.js';
import { DEFINITION_ROUTES } from './routes/definitions.js';
import { GA4GH_ROUTES } from './routes/ga4gh.js';
import { SERVICE_ROUTES } from './routes/service.js';
import { TASK_ROUTES } from './routes/tasks.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';

/** The table, one file per area under routes/, in the order OpenAPI lists them. */
export const ROUTES = { ...DEFINITION_ROUTES, ...TASK_ROUTES, ...DATA_ROUTES, ...GA4GH_ROUTES, ...SERVICE_ROUTES } as const;

export interface RouteEntry {
  method: Method;
  url: string;
  /** The GeneDock operation whose error form the route answers in. */
  operation: string;
  tag: string;
  summary: string;
  /** false: unsigned; 'ga4gh': signed, or Basic or Bearer credentials (docs/ga4gh.md). */
  auth?: false | 'ga4gh';
  /** The body or answer is not JSON (files, text, metrics). */
  raw?: true;
  /** What the `*` at the end of the URL stands for (default: a data item's path). */
  pathDescription?: string;
  schema: { params?: object; querystring?: object; body?: object; response?: Record<number, object> };
}

/** Every entry with its id (`GetTool`, `Tasks.list`), in the table's order. */
export function allRoutes(): Array<[string, RouteEntry]> {
  const out: Array<[string, RouteEntry]> = [];
  const visit = (id: string, value: object): void => {
    if ('method' in value && 'url' in value) out.push([id, value as RouteEntry]);
    else for (const [key, child] of Object.entries(value)) visit(id ? `${id}.${key}` : key, child as object);
  };
  visit('', ROUTES);
  return out;
}

export { errorBody };
