import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  repositoryListItemSchema,
  repositoryListQuerySchema,
  repositorySchema,
  repositoryWriteSchema,
  zapAnswerSchema,
} from '@granary/contracts';
import { z } from 'zod';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { zapCache } from './actions.service.ts';
import { actorName, can, type RepositoriesContext, repositoryHidden } from './context.ts';
import {
  createRepository,
  deleteRepository,
  findRepository,
  listRepositories,
  toRepository,
  updateRepositoryConfig,
} from './repositories.service.ts';

const tags = ['repositories'];
const keyParams = z.object({ key: z.string().min(1).max(200) });

/** `GET /api/repositories`, `GET/PUT/POST/DELETE /api/repositories/{key}` (DESIGN.md Public REST API). */
export function repositoryRoutes(ctx: RepositoriesContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/repositories',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Repositories the caller may read',
          querystring: repositoryListQuerySchema,
          response: { 200: z.array(repositoryListItemSchema) },
        },
      },
      async (request) => {
        const base = publicBaseUrl(request, ctx.baseUrl);
        const all = await listRepositories(
          ctx.db,
          { rclass: request.query.type, packageType: request.query.packageType },
          ctx.formats,
        );
        const visible = [];
        for (const repo of all)
          if (await can(ctx, request.principal, 'read', repo, ''))
            visible.push({
              key: repo.key,
              type: repo.rclass.toUpperCase(),
              packageType: repo.packageType,
              url: `${base}/repository/${repo.key}`,
              description: repo.description,
            });
        return visible;
      },
    );

    app.get(
      '/api/repositories/:key',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'A repository’s configuration',
          params: keyParams,
          response: { 200: repositorySchema },
        },
      },
      async (request) => {
        const repo = await findRepository(ctx.db, request.params.key);
        // A repository the caller may not read is not revealed.
        if (!repo || !(await can(ctx, request.principal, 'read', repo, '')))
          throw repositoryHidden(request.principal, request.params.key);
        return toRepository(repo);
      },
    );

    app.put(
      '/api/repositories/:key',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Create a repository',
          params: keyParams,
          body: repositoryWriteSchema,
          response: { 201: repositorySchema },
        },
      },
      async (request, reply) => {
        if (request.body.proxy) await ctx.checkProxyKey?.(request.body.proxy);
        if (request.body.primaryKeyPairRef) await ctx.checkSigningKey?.(request.body.primaryKeyPairRef);
        const repo = await createRepository(
          ctx.db,
          ctx.formats,
          request.params.key,
          request.body,
          actorName(request.principal),
          ctx.checkUpstreamAddress,
        );
        return reply.code(201).send(toRepository(repo));
      },
    );

    app.post(
      '/api/repositories/:key',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Update a repository',
          params: keyParams,
          body: repositoryWriteSchema,
          response: { 200: repositorySchema },
        },
      },
      async (request) => {
        if (request.body.proxy) await ctx.checkProxyKey?.(request.body.proxy);
        if (request.body.primaryKeyPairRef) await ctx.checkSigningKey?.(request.body.primaryKeyPairRef);
        const repo = await updateRepositoryConfig(
          ctx.db,
          ctx.formats,
          request.params.key,
          request.body,
          actorName(request.principal),
          ctx.checkUpstreamAddress,
        );
        ctx.remote.forget(repo.id);
        return toRepository(repo);
      },
    );

    app.post(
      '/api/repositories/:key/zap',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary:
            'Zap cache: a remote repository forgets remembered misses and marks cached files stale (?path=)',
          params: keyParams,
          querystring: z.object({ path: z.string().max(4000).optional() }),
          response: { 200: zapAnswerSchema },
        },
      },
      (request) => zapCache(ctx, request.principal, request.params.key, request.query.path ?? ''),
    );

    app.delete(
      '/api/repositories/:key',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Delete a repository and its artifacts', params: keyParams },
      },
      async (request, reply) => {
        await deleteRepository(ctx.db, request.params.key, actorName(request.principal));
        return reply.code(204).send();
      },
    );
  };
}
