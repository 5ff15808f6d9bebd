import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import { countedState, WES_STATES } from '../../contract/wes-states.js';
import { DEFAULT_PROJECT } from '../../domain/access.js';
import { invalid } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { knownEngineParameters, readRunForm, WES_WORKFLOW_TYPES } from '../../domain/wes/request.js';
import type { WesScope } from '../../domain/wes/service.js';
import { packageVersion } from '../../package-root.js';
import { contentMd5, getHeader } from '../../signing/index.js';
import { httpError } from '../errors.js';
import { routeOptions, type RouteTypes } from '../route-options.js';
import type { RouteContext } from './context.js';

/** The largest POST /runs body (the form with its attachments, held in memory while the run is made). */
export const WES_BODY_LIMIT = 64 * 1024 * 1024;

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * GA4GH WES 1.1 at /ga4gh/wes/v1 (docs/ga4gh.md, "WES"). A client acts in one project of its account, as on TES: its
 * token's, or the account's default project. POST /runs takes WES's multipart form (parsed here, in this plugin's
 * context only: the rest of the API takes JSON bodies).
 */
export async function registerWesRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const { wes } = context.services;
  const scope = (request: FastifyRequest): WesScope => {
    const caller = request.caller;
    return { caller, project: caller.project ?? DEFAULT_PROJECT, baseUrl: context.baseUrl(request), local: LOOPBACK.has(request.ip) };
  };

  app.get(ROUTES.Wes.serviceInfo.url, routeOptions(ROUTES.Wes.serviceInfo), (request) => serviceInfo(context.baseUrl(request), context.services));

  // WES's form (repeated workflow_attachment parts, fields sent as files) has its own parser, scoped to this plugin: it
  // takes the place of the app's (server/multipart.ts, the wdl/ routes' forms, which refuses a repeated part) here only.
  await app.register((forms, _options, registered) => {
    forms.removeContentTypeParser('multipart/form-data');
    forms.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: WES_BODY_LIMIT }, (request, body: Buffer, done) => {
      const md5 = getHeader(request.headers, 'content-md5');
      if (md5 !== undefined && md5 !== contentMd5(body)) {
        done(httpError('InvalidDigest', `Content-MD5 '${md5.slice(0, 64)}' is not the base64 MD5 of the ${body.length}-byte body`));
        return;
      }
      readForm(String(request.headers['content-type']), body).then(
        (form) => done(null, form),
        (error: Error) => done(error),
      );
    });
    forms.post<RouteTypes<typeof ROUTES.Wes.run>>(ROUTES.Wes.run.url, { ...routeOptions(ROUTES.Wes.run), bodyLimit: WES_BODY_LIMIT }, async (request) => {
      if (request.body === undefined) throw invalid('the body is empty: send the run request as a multipart/form-data form (workflow_type, workflow_url, ...)');
      return wes.run(scope(request), readRunForm(request.body));
    });
    registered();
  });

  app.get<RouteTypes<typeof ROUTES.Wes.list>>(ROUTES.Wes.list.url, routeOptions(ROUTES.Wes.list), async (request) => wes.list(scope(request), request.query));
  app.get<RouteTypes<typeof ROUTES.Wes.get>>(ROUTES.Wes.get.url, routeOptions(ROUTES.Wes.get), async (request) =>
    wes.get(scope(request), request.params.run_id),
  );
  app.get<RouteTypes<typeof ROUTES.Wes.status>>(ROUTES.Wes.status.url, routeOptions(ROUTES.Wes.status), async (request) =>
    wes.status(scope(request), request.params.run_id),
  );
  app.get<RouteTypes<typeof ROUTES.Wes.tasks>>(ROUTES.Wes.tasks.url, routeOptions(ROUTES.Wes.tasks), async (request) =>
    wes.taskLogs(scope(request), request.params.run_id, request.query),
  );
  app.post<RouteTypes<typeof ROUTES.Wes.cancel>>(ROUTES.Wes.cancel.url, routeOptions(ROUTES.Wes.cancel), async (request) =>
    wes.cancel(scope(request), request.params.run_id),
  );
}

/**
 * The form's fields (a field sent as a file part, as Python's requests sends `files=` entries, is read as its text) and
 * its workflow_attachment files (name: the part's filename, its relative path). A field given twice, or holding a NUL,
 * is refused naming it.
 */
async function readForm(contentType: string, body: Buffer): Promise<Record<string, unknown>> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw invalid('the body is not a valid multipart/form-data form (check the boundary of Content-Type and the parts)');
  }
  const fields: Record<string, unknown> = {};
  const attachments: Array<{ name: string; size: number; data: Buffer }> = [];
  for (const [name, value] of form) {
    if (name === 'workflow_attachment' && typeof value !== 'string') {
      attachments.push({ name: value.name, size: value.size, data: Buffer.from(await value.arrayBuffer()) });
      continue;
    }
    const text = typeof value === 'string' ? value : await value.text();
    if (name in fields) throw invalid(`${name.slice(0, 64)} is given more than once`);
    if (text.includes('\0') || /\\u0000/.test(text)) throw invalid(`${name.slice(0, 64)} holds a NUL character, which no name, text or path may contain`);
    fields[name] = text;
  }
  if (attachments.length > 0) fields.workflow_attachment = attachments;
  return fields;
}

function serviceInfo(baseUrl: string, services: Services) {
  return services.store.stateCounts().then(({ tasks }) => {
    const counts: Record<string, number> = Object.fromEntries(WES_STATES.map((state) => [state, 0]));
    for (const [status, n] of Object.entries(tasks)) counts[countedState(status)]! += n ?? 0;
    return {
      id: 'org.gdflow.wes',
      name: 'gdflow WES',
      type: { group: 'org.ga4gh', artifact: 'wes', version: '1.1.0' },
      description: "GA4GH WES 1.1 on gdflow: each run is a gdflow task, run by gdflow's own engine (docs/ga4gh.md)",
      organization: { name: 'gdflow', url: baseUrl },
      contactUrl: baseUrl,
      documentationUrl: `${baseUrl}/openapi.json`,
      environment: 'prod',
      version: packageVersion(),
      workflow_type_versions: Object.fromEntries(
        Object.entries(WES_WORKFLOW_TYPES).map(([type, versions]) => [type, { workflow_type_version: [...versions] }]),
      ),
      supported_wes_versions: ['1.1.0'],
      supported_filesystem_protocols: ['attachment (relative paths of workflow_attachment files)', "gdflow (gdflow:<data path> in the caller's data store)"],
      workflow_engine_versions: { gdflow: { workflow_engine_version: [packageVersion()] } },
      default_workflow_engine_parameters: knownEngineParameters().map((parameter) => ({ name: parameter, type: 'string', default_value: '' })),
      system_state_counts: counts,
      auth_instructions_url: `${baseUrl}/openapi.json`,
      tags: {},
    };
  });
}
