/** The data store (docs/data.md) and the web console's files (docs/console.md). */
import { dataList, dataPutResult } from '../data.js';
import { empty } from './shared.js';

export const DATA_ROUTES = {
  // Data store (docs/data.md): bodies are files, not JSON
  ListData: {
    method: 'GET',
    url: '/accounts/:account/data/',
    operation: 'Data',
    tag: 'data',
    summary: 'List data items below a prefix',
    schema: {
      params: { type: 'object', properties: { account: { type: 'string', minLength: 1 } }, required: ['account'] },
      querystring: { type: 'object', properties: { prefix: { type: 'string' }, limit: { type: 'integer', minimum: 1 } } },
      response: { 200: dataList },
    },
  },
  PutData: {
    method: 'PUT',
    url: '/accounts/:account/data/*',
    operation: 'Data',
    tag: 'data',
    summary: 'Upload a data item (the body, any type), atomically',
    raw: true,
    schema: { response: { 200: dataPutResult } },
  },
  GetData: { method: 'GET', url: '/accounts/:account/data/*', operation: 'Data', tag: 'data', summary: 'Download a data item', raw: true, schema: {} },
  DeleteData: {
    method: 'DELETE',
    url: '/accounts/:account/data/*',
    operation: 'Data',
    tag: 'data',
    summary: 'Delete a data item',
    schema: { response: { 200: empty } },
  },
  // The web console (docs/console.md): unsigned files; the console signs its API requests in the browser
  ConsoleRoot: {
    method: 'GET',
    url: '/',
    operation: 'Console',
    tag: 'console',
    auth: false,
    raw: true,
    summary: 'A redirect to the web console (/console/)',
    schema: {},
  },
  ConsolePage: {
    method: 'GET',
    url: '/console/',
    operation: 'Console',
    tag: 'console',
    auth: false,
    raw: true,
    summary: 'The web console (HTML, with a strict Content-Security-Policy)',
    schema: {},
  },
  ConsoleFile: {
    method: 'GET',
    url: '/console/*',
    operation: 'Console',
    tag: 'console',
    auth: false,
    raw: true,
    pathDescription: 'a file of the console build',
    summary: "The web console's script, style sheet and icon",
    schema: {},
  },
} as const;
