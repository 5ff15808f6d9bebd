/** The GA4GH APIs (docs/ga4gh.md): signed, or Basic or Bearer credentials; errors as {msg, status_code}. */
import {
  tesCancelResponse,
  tesCreateResponse,
  tesGetQuery,
  tesListQuery,
  tesListResponse,
  tesServiceInfo,
  tesTaskBody,
  tesTaskParams,
  tesTaskView,
} from '../tes.js';
import { TES } from './shared.js';

export const GA4GH_ROUTES = {
  // GA4GH TES 1.1 (docs/ga4gh.md): signed, or Basic or Bearer credentials; errors as {msg, status_code}
  Tes: {
    serviceInfo: {
      method: 'GET',
      url: `${TES}/service-info`,
      operation: 'Tes',
      tag: 'ga4gh-tes',
      auth: false,
      summary: 'TES service info: storage URL forms, backend parameters',
      schema: { response: { 200: tesServiceInfo } },
    },
    create: {
      method: 'POST',
      url: `${TES}/tasks`,
      operation: 'CreateTesTask',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: 'Create a TES task (a gdflow task of one job)',
      schema: { body: tesTaskBody, response: { 200: tesCreateResponse } },
    },
    list: {
      method: 'GET',
      url: `${TES}/tasks`,
      operation: 'Tes',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: "List the project's TES tasks, newest first",
      schema: { querystring: tesListQuery, response: { 200: tesListResponse } },
    },
    get: {
      method: 'GET',
      url: `${TES}/tasks/:id`,
      operation: 'Tes',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: 'Get a TES task in a view',
      schema: { params: tesTaskParams, querystring: tesGetQuery, response: { 200: tesTaskView } },
    },
    cancel: {
      method: 'POST',
      url: `${TES}/tasks/:id(^[^:/]+)::cancel`,
      operation: 'CancelTesTask',
      tag: 'ga4gh-tes',
      auth: 'ga4gh',
      summary: 'Cancel a TES task (an ended one stays as it is)',
      schema: { params: tesTaskParams, response: { 200: tesCancelResponse } },
    },
  },
} as const;
