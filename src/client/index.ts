/** The gdflow SDK: `import { Client } from '@gdflow/client'` (its own package, packages/client), or from 'gdflow/client' in the whole gdflow package. */
export { Client, notFoundAs, TaskWaitTimeout, type ClientOptions, type DataBody, type WaitOptions } from './client.js';
export { GdApiError, GdConnectionError } from './errors.js';
export { fetchTrusting, readCaFile, type CaCertificates, type Fetch } from './trusted-fetch.js';
export { fillRunParameters, type RunValues } from './run-parameters.js';
export { Transport, segment, type Credentials, type RequestOptions, type TransportOptions } from './transport.js';
export { DataPathError, dataRoute, formatDataItemName, parseDataItemName, parseDataPrefix, type DataRef } from './data-names.js';
export * from './types.js';
