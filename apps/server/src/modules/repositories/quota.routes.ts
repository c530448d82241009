import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { repositoryQuotaSchema, repositoryQuotaUpdateSchema } from '@granary/contracts';
import { z } from 'zod';
import type { RepositoriesContext } from './context.ts';
import { getRepositoryQuota, updateRepositoryQuota } from './storage-usage.service.ts';

const tags = ['storage'];
const params = z.object({ key: z.string().min(1).max(200) });

/** issue 21: a repository's storage quota (the repository form's "Quota" field) and its use. */
export function quotaRoutes(ctx: RepositoriesContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/ui/api/v1/storage/quotas/repositories/:key',
      {
        // Whoever may read the repository sees how full it is (the repository page's warning).
        config: { access: 'authenticated' },
        schema: {
          tags,
          summary: "A repository's storage quota and use",
          params,
          response: { 200: repositoryQuotaSchema },
        },
      },
      async (request) => getRepositoryQuota(ctx, request.principal, request.params.key),
    );
    app.put(
      '/ui/api/v1/storage/quotas/repositories/:key',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: "Set or remove (null) a repository's storage quota",
          params,
          body: repositoryQuotaUpdateSchema,
          response: { 200: repositoryQuotaSchema },
        },
      },
      async (request) =>
        updateRepositoryQuota(ctx, request.principal, request.params.key, request.body.quotaBytes),
    );
  };
}
