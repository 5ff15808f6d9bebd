/** GA4GH WES 1.1 (docs/ga4gh.md): a run is a gdflow task; credentials and errors as TES's (routes/ga4gh.ts). */
import { wesPageQuery, wesRunForm, wesRunId, wesRunList, wesRunLog, wesRunParams, wesRunStatus, wesServiceInfo, wesTaskList } from '../wes.js';

const WES = '/ga4gh/wes/v1';

export const WES_ROUTES = {
  Wes: {
    serviceInfo: {
      method: 'GET',
      url: `${WES}/service-info`,
      operation: 'Wes',
      tag: 'ga4gh-wes',
      auth: false,
      summary: 'WES service info: workflow types and versions, file system protocols, the runs by state',
      schema: { response: { 200: wesServiceInfo } },
    },
    run: {
      method: 'POST',
      url: `${WES}/runs`,
      operation: 'RunWesWorkflow',
      tag: 'ga4gh-wes',
      auth: 'ga4gh',
      bodyType: 'multipart/form-data',
      summary: 'Run a workflow (multipart form): a CWL document attached, in the data store or registered, or a GeneDock workflow; the run is a gdflow task',
      schema: { body: wesRunForm, response: { 200: wesRunId } },
    },
    list: {
      method: 'GET',
      url: `${WES}/runs`,
      operation: 'Wes',
      tag: 'ga4gh-wes',
      auth: 'ga4gh',
      summary: "The project's runs (its tasks but TES tasks), newest first",
      schema: { querystring: wesPageQuery, response: { 200: wesRunList } },
    },
    get: {
      method: 'GET',
      url: `${WES}/runs/:run_id`,
      operation: 'Wes',
      tag: 'ga4gh-wes',
      auth: 'ga4gh',
      summary: 'A run: its request, state, log and outputs',
      schema: { params: wesRunParams, response: { 200: wesRunLog } },
    },
    status: {
      method: 'GET',
      url: `${WES}/runs/:run_id/status`,
      operation: 'Wes',
      tag: 'ga4gh-wes',
      auth: 'ga4gh',
      summary: "A run's state",
      schema: { params: wesRunParams, response: { 200: wesRunStatus } },
    },
    tasks: {
      method: 'GET',
      url: `${WES}/runs/:run_id/tasks`,
      operation: 'Wes',
      tag: 'ga4gh-wes',
      auth: 'ga4gh',
      summary: "A run's jobs as TaskLogs, paged",
      schema: { params: wesRunParams, querystring: wesPageQuery, response: { 200: wesTaskList } },
    },
    cancel: {
      method: 'POST',
      url: `${WES}/runs/:run_id/cancel`,
      operation: 'CancelWesRun',
      tag: 'ga4gh-wes',
      auth: 'ga4gh',
      summary: 'Cancel a run: its running jobs are killed (an ended run stays as it is)',
      schema: { params: wesRunParams, response: { 200: wesRunId } },
    },
  },
} as const;
