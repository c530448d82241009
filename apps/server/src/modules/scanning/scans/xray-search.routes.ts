import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { componentSearchPageSchema, componentSearchQuerySchema, xrayVersionSchema } from '@granary/contracts';
import type { RepositoriesContext } from '../../repositories/repositories.api.ts';
import { readVersion } from '../../system/version.ts';
import { searchComponents } from './component-search.ts';
import type { ScanService } from './scans.service.ts';

const tags = ['scanning'];
const UI = '/ui/api/v1/xray/ui';
// Permission on repositories is asked per file by the search: a caller sees what it may read.
const anyone = { access: 'public' as const };

/**
 * The toolbar's "Xray security and compliance" search (issue 16, spec 001 §2, §7
 * `POST /xray/ui/component/paginatedsearch`) and the home page's `GET /xray/ui/homepage/getXrayVersion`
 * (the scanner is part of the product: the product's version).
 */
export function xraySearchRoutes(scans: ScanService, repos: RepositoriesContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      `${UI}/component/paginatedsearch`,
      {
        config: anyone,
        schema: {
          tags,
          hide: true,
          body: componentSearchQuerySchema,
          response: { 200: componentSearchPageSchema },
        },
      },
      async (request) => searchComponents(scans, repos, request.principal, request.body),
    );
    const { version, revision } = readVersion();
    app.get(
      `${UI}/homepage/getXrayVersion`,
      { config: anyone, schema: { tags, hide: true, response: { 200: xrayVersionSchema } } },
      async () => ({ xray_version: version, xray_revision: revision }),
    );
  };
}
