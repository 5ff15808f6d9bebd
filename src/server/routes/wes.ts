import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import { WES_STATES } from '../../contract/ga4gh-states.js';
import { countedState } from '../../domain/ga4gh/states.js';
import { DEFAULT_PROJECT } from '../../domain/access.js';
import { invalid } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { isMultipartForm } from '../../domain/multipart-form.js';
import { fieldsOfForm, knownEngineParameters, MAX_ATTACHMENTS, readRunForm, WES_WORKFLOW_TYPES } from '../../domain/wes/request.js';
import type { WesScope } from '../../domain/wes/service.js';
import { packageVersion } from '../../package-root.js';
import type { FormLimits } from '../multipart.js';
import { routeOptions, type RouteTypes } from '../route-options.js';
import type { RouteContext } from './context.js';
import { ga4ghServiceInfo } from './ga4gh-service-info.js';

/** The largest POST /runs body (the form with its attachments, held in memory while the run is made). */
export const WES_BODY_LIMIT = 64 * 1024 * 1024;
/** POST /runs's form: its fields (JSON texts, which may be long), and up to MAX_ATTACHMENTS files (and fields sent as files). */
const WES_FORM_LIMITS: FormLimits = { fields: 32, files: MAX_ATTACHMENTS + 32, parts: MAX_ATTACHMENTS + 64, fieldSize: 16 * 1024 * 1024 };

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * GA4GH WES 1.1 at /ga4gh/wes/v1 (docs/ga4gh.md, "WES"). A client acts in one project of its account, as on TES: its
 * token's, or the account's default project. POST /runs takes WES's multipart form (or the same fields as JSON).
 */
export function registerWesRoutes(app: FastifyInstance, context: RouteContext): void {
  const { wes } = context.services;
  const scope = (request: FastifyRequest): WesScope => {
    const caller = request.caller;
    return { caller, project: caller.project ?? DEFAULT_PROJECT, baseUrl: context.baseUrl(request), local: LOOPBACK.has(request.ip) };
  };

  app.get(ROUTES.Wes.serviceInfo.url, routeOptions(ROUTES.Wes.serviceInfo), (request) => serviceInfo(context.baseUrl(request), context.services));

  // The app's multipart parser (server/multipart.ts) with WES's limits; the form becomes the run request's fields
  // before the body schema checks them.
  const run = routeOptions(ROUTES.Wes.run);
  app.post<RouteTypes<typeof ROUTES.Wes.run>>(
    ROUTES.Wes.run.url,
    {
      ...run,
      bodyLimit: WES_BODY_LIMIT,
      config: { ...run.config, multipart: WES_FORM_LIMITS },
      preValidation: (request, _reply, done) => {
        const body: unknown = request.body;
        try {
          if (isMultipartForm(body)) request.body = fieldsOfForm(body) as unknown as typeof request.body;
          done();
        } catch (error) {
          done(error as Error);
        }
      },
    },
    async (request) => {
      if (request.body === undefined) throw invalid('the body is empty: send the run request as a multipart/form-data form (workflow_type, workflow_url, ...)');
      return wes.run(scope(request), readRunForm(request.body));
    },
  );

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

function serviceInfo(baseUrl: string, services: Services) {
  const hosts = services.tes.policy.fetchHosts.list;
  return services.store.stateCounts().then(({ tasks }) => {
    const counts: Record<string, number> = Object.fromEntries(WES_STATES.map((state) => [state, 0]));
    for (const [status, n] of Object.entries(tasks)) counts[countedState(status)]! += n ?? 0;
    return {
      ...ga4ghServiceInfo(baseUrl, {
        artifact: 'wes',
        version: '1.1.0',
        description: "GA4GH WES 1.1 on gdflow: each run is a gdflow task, run by gdflow's own engine (docs/ga4gh.md)",
      }),
      workflow_type_versions: Object.fromEntries(
        Object.entries(WES_WORKFLOW_TYPES).map(([type, versions]) => [type, { workflow_type_version: [...versions] }]),
      ),
      supported_wes_versions: ['1.1.0'],
      supported_filesystem_protocols: [
        'attachment (relative paths of workflow_attachment files)',
        "gdflow (gdflow:<data path> in the caller's data store)",
        // The operator's --fetch-hosts, which TES's http(s) inputs share: a workflow_url (and what it names) from these.
        ...(hosts.length > 0 ? [`http(s) (a workflow_url on ${hosts.join(', ')})`] : []),
      ],
      workflow_engine_versions: { gdflow: { workflow_engine_version: [packageVersion()] } },
      default_workflow_engine_parameters: knownEngineParameters().map((parameter) => ({ name: parameter, type: 'string', default_value: '' })),
      system_state_counts: counts,
      auth_instructions_url: `${baseUrl}/openapi.json`,
      tags: {},
    };
  });
}
