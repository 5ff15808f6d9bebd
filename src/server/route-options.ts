/**
 * A route's Fastify options from its entry in the API table (contract/routes.ts): the schemas Fastify validates
 * with, and the config the auth hook and the error handler read.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { RouteEntry } from '../contract/routes.js';
import { OPERATION_ERRORS, type Operation } from './errors.js';

export function routeOptions<E extends RouteEntry>(entry: E): { schema: E['schema']; config: { operation?: Operation; auth?: boolean | 'ga4gh' } } {
  const operation = entry.operation in OPERATION_ERRORS ? (entry.operation as Operation) : undefined;
  return {
    schema: entry.schema,
    config: { ...(operation ? { operation } : {}), ...(entry.auth === false ? { auth: false } : entry.auth === 'ga4gh' ? { auth: 'ga4gh' as const } : {}) },
  };
}

type Part<S, K extends string> = S extends { [key in K]: infer P } ? (P extends JSONSchema ? FromSchema<P> : unknown) : unknown;

/** A handler's request types, derived from its entry's schemas: `app.get<RouteTypes<typeof ROUTES.GetTool>>(...)`. */
export type RouteTypes<E extends { schema: object }> = {
  Params: Part<E['schema'], 'params'>;
  Querystring: Part<E['schema'], 'querystring'>;
  Body: Part<E['schema'], 'body'>;
};
