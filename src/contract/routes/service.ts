/** Unsigned routes: logs by signed link, health, metrics, the OpenAPI document. */
import { anyObject } from '../common.js';

/** GET /healthz: what the process is; a process that runs jobs adds its worker's state (docs/operating.md). */
const health = {
  type: 'object',
  required: ['status', 'role', 'version', 'executor', 'store'],
  properties: {
    status: { const: 'ok' },
    role: { enum: ['all', 'api', 'worker'] },
    version: { type: 'string', description: "gdflow's version" },
    executor: { type: ['string', 'null'], description: 'how jobs run (bwrap, host, podman, docker, slurm); null on an API replica, which runs none' },
    store: { enum: ['sqlite', 'postgres'], description: 'the kind of store' },
  },
  additionalProperties: true,
} as const;

export const SERVICE_ROUTES = {
  // Unsigned
  Log: {
    method: 'GET',
    url: '/logs/:job/',
    operation: 'Job',
    tag: 'tasks',
    auth: false,
    raw: true,
    summary:
      "A job's log (text), by the signed link of its job info; Range: bytes=N- for the part from byte N on (206, or 416 InvalidRange when nothing is there yet)",
    schema: {
      params: { type: 'object', properties: { job: { type: 'string', minLength: 1 } }, required: ['job'] },
      querystring: {
        type: 'object',
        properties: { expires: { type: 'string' }, signature: { type: 'string' }, stream: { type: 'string', enum: ['stdout', 'stderr'] } },
      },
    },
  },
  Health: {
    method: 'GET',
    url: '/healthz',
    operation: 'Health',
    tag: 'operations',
    auth: false,
    summary: "The server's health: role, version, executor, store kind and worker state",
    schema: { response: { 200: health } },
  },
  Metrics: {
    method: 'GET',
    url: '/metrics',
    operation: 'Metrics',
    tag: 'operations',
    auth: false,
    raw: true,
    summary: 'Prometheus metrics (a bearer token, or loopback only)',
    schema: {},
  },
  OpenApi: {
    method: 'GET',
    url: '/openapi.json',
    operation: 'OpenApi',
    tag: 'operations',
    auth: false,
    summary: 'This document',
    schema: { response: { 200: anyObject } },
  },
} as const;
