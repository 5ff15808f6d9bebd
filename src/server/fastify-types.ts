import type { Operation } from './errors.js';
import type { FormLimits } from './multipart.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation a route implements; picks its error codes and messages from the catalogue. */
    operation?: Operation;
    /** False for the few routes that carry their own proof (signed log URLs, health); 'ga4gh' for the GA4GH APIs' credentials. */
    auth?: boolean | 'ga4gh';
    /** The body is a multipart form (the wdl/ routes, WES's POST /runs; true: the default limits): the only routes that take one (multipart.ts). */
    multipart?: boolean | FormLimits;
  }
  interface FastifyRequest {
    /** The bytes of a JSON body as received (for Content-MD5). */
    rawBody: Buffer | null;
  }
}
