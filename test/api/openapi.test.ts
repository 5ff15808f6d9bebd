/**
 * GET /openapi.json (issue 15): an OpenAPI 3.1 document, valid by a real validator (@seriousme/openapi-schema-validator),
 * served unsigned, with every route the server has (the server refuses to register a route the table lacks), the
 * signature scheme and the error body; and docs/api-reference.md is its current rendering.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { allRoutes } from '../../src/contract/routes.js';
import { openApiMarkdown } from '../../src/server/openapi-markdown.js';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => server.close());

describe('GET /openapi.json', () => {
  let document: any;
  before(async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    document = await response.json();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
  });

  it('has every route the server serves, each with its method, and the server has every route it lists', () => {
    // `(regex)` constrains a parameter and `::` is a literal colon (TES's /tasks/{id}:cancel).
    const pathOf = (url: string) =>
      url
        .replace(/\([^)]*\)/g, '')
        .replace(/::/g, '\0')
        .replace(/:([A-Za-z_]+)/g, '{$1}')
        .replace(/\0/g, ':')
        .replace(/\*$/, '{path}');
    const entries = allRoutes();
    assert.ok(entries.length >= 40, `${entries.length} routes`);
    for (const [id, entry] of entries) {
      assert.ok(document.paths[pathOf(entry.url)]?.[entry.method.toLowerCase()], `${id}: ${entry.method} ${entry.url} is in the document`);
      // The router keeps a path without its trailing slash (ignoreTrailingSlash).
      const served = [entry.url, entry.url.replace(/(.)\/$/, '$1')].some((url) => server.server.app.hasRoute({ method: entry.method, url }));
      assert.ok(served, `${id}: the server serves ${entry.method} ${entry.url}`);
    }
    const operations = Object.values(document.paths).flatMap((p: any) => Object.values(p)) as any[];
    assert.equal(operations.length, entries.length);
    assert.equal(new Set(operations.map((o) => o.operationId)).size, operations.length, 'operation ids are unique');
    // The 15 operations of INTERFACE.md §4 by name.
    for (const name of [
      'CreateTool',
      'PutTool',
      'DeleteTool',
      'ListTool',
      'GetTool',
      'GetToolParameterTemplate',
      'GetToolDetails',
      'CreateWorkflow',
      'PutWorkflow',
      'GetWorkflow',
      'DeleteWorkflow',
      'ListWorkflow',
      'GetExecutableWorkflow',
      'ListExecutableWorkflow',
      'ActivateWorkflow',
    ]) {
      assert.ok(
        operations.some((o) => o.operationId === name),
        name,
      );
    }
  });

  it('describes the signature as a security scheme, required on signed routes only, and the error body on every route', () => {
    assert.equal(document.components.securitySchemes.GeneDock.name, 'Authorization');
    const getTool = document.paths['/accounts/{account}/projects/{project}/tools/{tool}/'].get;
    assert.deepEqual(getTool.security, [{ GeneDock: [] }]);
    // Versions in the query are decimal digits: typed as text, since coercing text to an integer reads 0x1 and 1e0 as 1.
    const toolVersion = getTool.parameters.find((p: any) => p.name === 'tool_version').schema;
    assert.equal(toolVersion.type, 'string');
    assert.equal(toolVersion.pattern, '^0*[1-9][0-9]{0,8}$');
    assert.deepEqual(document.paths['/healthz'].get.security, []);
    assert.deepEqual(document.components.schemas.ErrorBody.required, ['error_code', 'error_message', 'error_message_chs']);
    for (const [name, path] of Object.entries<any>(document.paths)) {
      // The GA4GH APIs answer in their own form (docs/ga4gh.md).
      const body = name.startsWith('/ga4gh/') ? '#/components/schemas/Ga4ghError' : '#/components/schemas/ErrorBody';
      for (const operation of Object.values<any>(path)) assert.equal(operation.responses['4XX'].content['application/json'].schema.$ref, body);
    }
    assert.deepEqual(document.paths['/ga4gh/tes/v1/tasks'].post.security, [{ GeneDock: [] }, { Basic: [] }, { Bearer: [] }]);
    const putTool = document.paths['/accounts/{account}/projects/{project}/tools/{tool}/'].put;
    assert.equal(
      putTool.requestBody.content['application/json'].schema.properties.configs.properties.requirements.properties.resources.properties.cpu.type,
      'integer',
    );
  });

  it('docs/api-reference.md is the rendering of this document (regenerate: gdflow openapi --markdown > docs/api-reference.md)', () => {
    const committed = readFileSync(join(repoRoot(), 'docs', 'api-reference.md'), 'utf8');
    assert.equal(committed, openApiMarkdown(document));
  });
});
