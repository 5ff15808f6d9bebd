/**
 * A route's Fastify options from its entry in the API table (contract/routes.ts): the schemas Fastify validates
 * with, and the config the auth hook and the error handler read.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { RouteEntry } from '../contract/routes.js';
import { OPERATION_ERRORS, type Operation } from './errors.js';
import type { FormLimits } from './multipart.js';

/** The largest multipart form (a WDL document and its zip of imports, with the form's own bytes). */
export const MULTIPART_BODY_LIMIT = 40 * 1024 * 1024;

type Options<E extends RouteEntry> = {
  schema: E['schema'];
  bodyLimit?: number;
  config: { operation?: Operation; auth?: boolean | 'ga4gh'; multipart?: boolean | FormLimits };
};

export function routeOptions<E extends RouteEntry>(entry: E): Options<E> {
  const operation = entry.operation in OPERATION_ERRORS ? (entry.operation as Operation) : undefined;
  // A form's fields are read by the domain, which names each it refuses: `form` only documents them (openapi.ts).
  const { form: _form, ...schema } = entry.schema;
  return {
    schema,
    ...(entry.multipart ? { bodyLimit: MULTIPART_BODY_LIMIT } : {}),
    config: {
      ...(operation ? { operation } : {}),
      ...(entry.auth === false ? { auth: false } : entry.auth === 'ga4gh' ? { auth: 'ga4gh' as const } : {}),
      ...(entry.multipart ? { multipart: true } : {}),
    },
  };
}

type Part<S, K extends string> = S extends { [key in K]: infer P } ? (P extends JSONSchema ? FromSchema<P> : unknown) : unknown;

/** A handler's request types, derived from its entry's schemas: `app.get<RouteTypes<typeof ROUTES.GetTool>>(...)`. */
export type RouteTypes<E extends { schema: object }> = {
  Params: Part<E['schema'], 'params'>;
  Querystring: Part<E['schema'], 'querystring'>;
  Body: Part<E['schema'], 'body'>;
};
