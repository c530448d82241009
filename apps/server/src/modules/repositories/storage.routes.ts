import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  copyMoveAnswerSchema,
  downloadStatsSchema,
  type StorageInfo,
  storageHistorySchema,
  storageInfoSchema,
  storagePropertiesSchema,
  storageSummarySchema,
} from '@granary/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { InvalidError, NotFoundError } from '../../platform/errors.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { listChildren } from './artifacts.queries.ts';
import {
  changeProperties,
  copyOrMove,
  findStored,
  type Properties,
  parsePropertiesParam,
  refuseInternalPath,
} from './artifacts.service.ts';
import type { RepositoriesContext } from './context.ts';
import { visibleChild } from './internal-paths.ts';
import { mimeTypeOf } from './mime.ts';
import { RepoPath } from './repo-path.ts';
import { storageHistory, storageSummary } from './storage-usage.service.ts';

const tags = ['storage'];
const params = z.object({ key: z.string().min(1).max(200), '*': z.string().optional() });
const storageQuery = z.object({ properties: z.string().optional() }).passthrough();
const config = { access: 'public' as const };

const pathOf = (p: { key: string; '*'?: string }) => RepoPath.parse(p.key, p['*'] ?? '');

/** Artifactory's `/api/storage`, `/api/copy`, `/api/move`, and the console's storage summary. */
export function storageRoutes(ctx: RepositoriesContext, now: () => number = Date.now): FastifyPluginAsyncZod {
  return async (app) => {
    const base = (request: FastifyRequest) => publicBaseUrl(request, ctx.baseUrl);

    const info = async (
      request: FastifyRequest<{ Params: z.infer<typeof params>; Querystring: z.infer<typeof storageQuery> }>,
    ) => {
      const path = pathOf(request.params);
      const found = await findStored(ctx, request.principal, path);
      const key = found.target.key;
      const uri = `${base(request)}/api/storage/${key}${path.isRoot ? '' : `/${path.path}`}`;
      if (request.query.properties !== undefined) {
        if (!found.artifact) throw new NotFoundError('Folders carry no properties');
        const all = found.artifact.properties as Properties;
        const wanted = request.query.properties ? request.query.properties.split(',') : Object.keys(all);
        // own keys only: `constructor` is no property of a file (issue 12 §17)
        const properties = Object.fromEntries(
          wanted.filter((k) => Object.hasOwn(all, k)).map((k) => [k, all[k]!]),
        );
        if (Object.keys(properties).length === 0) throw new NotFoundError('No properties');
        return { properties, uri };
      }
      // Artifactory's `?stats` (issue 21: download statistics, kept by the retention module)
      if ((request.query as Record<string, unknown>).stats !== undefined) {
        if (!found.artifact) throw new NotFoundError('Folders have no download statistics');
        const stats = await ctx.artifactExtensions.stats(found.artifact.repositoryId, found.artifact.path);
        return { uri, ...stats, remoteDownloadCount: 0, remoteLastDownloaded: 0 };
      }
      if (found.artifact) {
        const a = found.artifact;
        const checksums = { sha1: a.sha1, md5: a.md5, sha256: a.sha256 };
        return {
          repo: key,
          path: `/${a.path}`,
          created: a.createdAt.toISOString(),
          createdBy: a.createdBy,
          lastModified: a.modifiedAt.toISOString(),
          modifiedBy: a.modifiedBy,
          lastUpdated: a.modifiedAt.toISOString(),
          size: String(a.size),
          mimeType: a.mimeType ?? mimeTypeOf(a.path),
          checksums,
          originalChecksums: checksums,
          downloadUri: `${base(request)}/repository/${key}/${a.path}`,
          uri,
        } satisfies StorageInfo;
      }
      const repo = found.target.repo;
      const children = repo.rclass === 'virtual' ? [] : await listChildren(ctx.db, repo.id, path.path);
      const when = repo.createdAt.toISOString();
      return {
        repo: key,
        path: `/${path.path}`,
        created: when,
        createdBy: 'system',
        lastModified: when,
        lastUpdated: when,
        children: children
          .filter((c) => visibleChild(ctx, repo.packageType, path.path, c.name))
          .map((c) => ({ uri: `/${c.name}`, folder: c.folder })),
        uri,
      } satisfies StorageInfo;
    };
    const getSchema = {
      tags,
      summary: 'File or folder information, its properties (?properties) or download statistics (?stats)',
      params,
      querystring: storageQuery,
      response: {
        200: z.union([storageInfoSchema, storagePropertiesSchema, downloadStatsSchema]),
      },
    };
    app.get('/api/storage/:key', { config, schema: getSchema }, info);
    app.get('/api/storage/:key/*', { config, schema: getSchema }, info);

    app.put(
      '/api/storage/:key/*',
      {
        config,
        schema: {
          tags,
          summary: 'Set properties: ?properties=k=v1,v2;k2=v3',
          params,
          querystring: storageQuery,
        },
      },
      async (request, reply) => {
        const raw = request.query.properties;
        if (!raw) throw new InvalidError('properties: give k=v pairs separated by ";"');
        const path = pathOf(request.params);
        await refuseInternalPath(ctx, request.principal, path, 'annotate');
        await changeProperties(ctx, request.principal, path, { set: parsePropertiesParam(raw) });
        return reply.code(204).send();
      },
    );
    app.delete(
      '/api/storage/:key/*',
      {
        config,
        schema: { tags, summary: 'Remove properties: ?properties=k1,k2', params, querystring: storageQuery },
      },
      async (request, reply) => {
        const raw = request.query.properties;
        if (!raw) throw new InvalidError('properties: name the properties to remove, separated by ","');
        const path = pathOf(request.params);
        await refuseInternalPath(ctx, request.principal, path, 'annotate');
        await changeProperties(ctx, request.principal, path, {
          remove: raw
            .split(/[,;]/)
            .map((k) => k.trim())
            .filter(Boolean),
        });
        return reply.code(204).send();
      },
    );

    const copyQuery = z.object({ to: z.string().min(2), dry: z.string().optional() });
    for (const mode of ['copy', 'move'] as const) {
      app.post(
        `/api/${mode}/:key/*`,
        {
          config,
          schema: {
            tags,
            summary: `${mode === 'copy' ? 'Copy' : 'Move'} a file or folder: ?to=/{key}/{path}[&dry=1]`,
            params,
            querystring: copyQuery,
            response: { 200: copyMoveAnswerSchema },
          },
        },
        async (request) => {
          const from = pathOf(request.params);
          const to = request.query.to.replace(/^\/+/, '');
          const slash = to.indexOf('/');
          const target = RepoPath.parse(
            slash < 0 ? to : to.slice(0, slash),
            slash < 0 ? '' : to.slice(slash + 1),
          );
          const dry = request.query.dry === '1' || request.query.dry === 'true';
          const result = await copyOrMove(ctx, request.principal, mode, from, target, dry);
          const verb = mode === 'copy' ? 'copying' : 'moving';
          return {
            messages: result.files.map(([a, b]) => ({
              level: 'INFO',
              message: `${dry ? 'dry run: ' : ''}${verb} ${a} to ${b} completed successfully`,
            })),
          };
        },
      );
    }

    app.get(
      '/ui/api/v1/ui/storagesummary',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary:
            'Storage per repository, project and package type; deduplication; trash, archive and reclaimable bytes',
          response: { 200: storageSummarySchema },
        },
      },
      async () => storageSummary(ctx, ctx.storageUsage ?? {}),
    );
    app.get(
      '/ui/api/v1/ui/storagesummary/history',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Daily storage use per repository over the last days (?days=1..366, default 30)',
          querystring: z.object({ days: z.coerce.number().int().min(1).max(366).default(30) }),
          response: { 200: storageHistorySchema },
        },
      },
      async (request) => storageHistory(ctx, request.query.days, now()),
    );
  };
}
