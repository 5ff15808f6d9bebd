import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../contract/routes.js';
import type { RouteContext } from './context.js';
import { routeOptions, type RouteTypes } from '../route-options.js';

/** CWL import (docs/cwl.md, "Import"): what `gdflow cwl import` posts. */
export function registerCwlImportRoutes(app: FastifyInstance, context: RouteContext): void {
  const imports = context.services.cwlImports;
  app.post<RouteTypes<typeof ROUTES.ImportCwl>>(ROUTES.ImportCwl.url, routeOptions(ROUTES.ImportCwl), async (request) =>
    imports.import(request.scope, request.body),
  );
}
