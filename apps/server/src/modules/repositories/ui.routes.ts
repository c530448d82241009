import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { artifactActionsSchema, packageTypeInfoSchema, setMeUpSchema } from '@granary/contracts';
import { z } from 'zod';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { artifactActions, setMeUp } from './actions.service.ts';
import type { RepositoriesContext } from './context.ts';
import { RepoPath } from './repo-path.ts';

const tags = ['repositories'];

/**
 * The console calls of the tree browser and the repository screens (DESIGN.md URL map: spec paths under
 * `/ui/api/v1/`): `ui/setMeUp` (spec 000 §7), `ui/artifactactions` (effective permissions and the spec
 * 001 §3 actions at a path) and `ui/packagetypes` (the formats this server runs, for the creation grid).
 */
export function uiRoutes(ctx: RepositoriesContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/ui/api/v1/ui/setMeUp',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Base URL, and a repository’s Set Me Up snippets (?repoKey=)',
          querystring: z.object({ repoKey: z.string().min(1).max(200).optional() }),
          response: { 200: setMeUpSchema },
        },
      },
      (request) =>
        setMeUp(ctx, request.principal, publicBaseUrl(request, ctx.baseUrl), request.query.repoKey),
    );

    app.get(
      '/ui/api/v1/ui/artifactactions',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'What the caller may do at a path: permissions and the actions that follow',
          querystring: z.object({
            repoKey: z.string().min(1).max(200),
            path: z.string().max(4000).optional(),
          }),
          response: { 200: artifactActionsSchema },
        },
      },
      (request) =>
        artifactActions(
          ctx,
          request.principal,
          RepoPath.parse(request.query.repoKey, request.query.path ?? ''),
        ),
    );

    app.get(
      '/ui/api/v1/ui/packagetypes',
      {
        config: { access: 'authenticated' },
        schema: {
          tags,
          summary: 'Package types this server runs',
          response: { 200: z.array(packageTypeInfoSchema) },
        },
      },
      () =>
        ctx.formats.list().map((f) => ({
          id: f.id,
          displayName: f.displayName,
          icon: f.icon,
          classes: [...f.classes],
        })),
    );
  };
}
