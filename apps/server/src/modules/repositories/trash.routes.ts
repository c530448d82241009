import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  type StorageInfo,
  storageInfoSchema,
  storagePropertiesSchema,
  TRASHCAN_REPO_KEY,
  trashActionAnswerSchema,
  trashSearchAnswerSchema,
  trashSearchQuerySchema,
} from '@granary/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../../platform/errors.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { authorize, can, type RepositoriesContext, repositoryHidden } from './context.ts';
import { mimeTypeOf } from './mime.ts';
import { RepoPath } from './repo-path.ts';
import { findRepository, listRepositories } from './repositories.service.ts';
import { findTrashItems, listTrashChildren, repositoryIdsInTrash } from './trash.queries.ts';
import {
  cleanTrash,
  emptyTrash,
  parseRepoPathParam,
  restoreFromTrash,
  searchTrashFor,
} from './trash.service.ts';

const tags = ['trash'];
const params = z.object({ key: z.string().min(1).max(200), '*': z.string().optional() });
const pathOf = (p: { key: string; '*'?: string }) => RepoPath.parse(p.key, p['*'] ?? '');
const message = (text: string) => ({ level: 'INFO', message: text });

/**
 * The trash can (issue 21) as Artifactory answers it: restore, clean (Delete Permanently), empty, and the
 * entries as the folder tree of `auto-trashcan` in the storage API; the console's Search Trash Can.
 */
export function trashRoutes(ctx: RepositoriesContext): FastifyPluginAsyncZod {
  return async (app) => {
    const restoreQuery = z.object({ to: z.string().min(1).max(4000).optional() });
    const restore = async (
      request: FastifyRequest<{ Params: z.infer<typeof params>; Querystring: z.infer<typeof restoreQuery> }>,
    ) => {
      const from = pathOf(request.params);
      const to = request.query.to ? parseRepoPathParam(request.query.to) : undefined;
      const result = await restoreFromTrash(ctx, request.principal, from, to);
      return {
        messages: result.files.map(([a, b]) =>
          message(`Successfully restored ${from.repoKey}/${a} to ${result.repo.key}/${b}`),
        ),
        files: result.files.length,
      };
    };
    const restoreSchema = {
      tags,
      summary:
        'Restore a trashed file or folder to its path, or to ?to={repoKey}/{path} (deploy permission there)',
      params,
      querystring: restoreQuery,
      response: { 200: trashActionAnswerSchema },
    };
    const open = { access: 'public' as const };
    app.post('/api/trash/restore/:key', { config: open, schema: restoreSchema }, restore);
    app.post('/api/trash/restore/:key/*', { config: open, schema: restoreSchema }, restore);

    const clean = async (request: FastifyRequest<{ Params: z.infer<typeof params> }>) => {
      const path = pathOf(request.params);
      const files = await cleanTrash(ctx, request.principal, path);
      return { messages: [message(`Deleted ${files} file(s) of ${path} from the trash permanently`)], files };
    };
    const cleanSchema = {
      tags,
      summary: 'Delete Permanently: a trashed file or folder (delete permission)',
      params,
      response: { 200: trashActionAnswerSchema },
    };
    app.delete('/api/trash/clean/:key', { config: open, schema: cleanSchema }, clean);
    app.delete('/api/trash/clean/:key/*', { config: open, schema: cleanSchema }, clean);

    app.post(
      '/api/trash/empty',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Empty Trash Can (admin)', response: { 200: trashActionAnswerSchema } },
      },
      async () => {
        const files = await emptyTrash(ctx.db);
        return { messages: [message(`Emptied the trash: ${files} file(s) deleted permanently`)], files };
      },
    );

    app.get(
      '/ui/api/v1/ui/trash/search',
      {
        config: { access: 'authenticated' },
        schema: {
          tags,
          summary: 'Search Trash Can: entries by name or path, in repositories',
          querystring: trashSearchQuerySchema,
          response: { 200: trashSearchAnswerSchema },
        },
      },
      (request) => searchTrashFor(ctx, request.principal, request.query),
    );

    // `/api/storage/auto-trashcan/{repoKey}/{path}`: Artifactory lists its trash as this repository's tree.
    const storageQuery = z.object({ properties: z.string().optional() }).passthrough();
    const listing = async (
      request: FastifyRequest<{ Params: { '*'?: string }; Querystring: z.infer<typeof storageQuery> }>,
    ) => {
      const rest = (request.params['*'] ?? '').replace(/^\/+|\/+$/g, '');
      const uri = `${publicBaseUrl(request, ctx.baseUrl)}/api/storage/${TRASHCAN_REPO_KEY}${rest ? `/${rest}` : ''}`;
      const root = {
        repo: TRASHCAN_REPO_KEY,
        path: `/${rest}`,
        created: new Date(0).toISOString(),
        createdBy: 'system',
        lastModified: new Date(0).toISOString(),
        uri,
      };
      if (!rest) {
        if (request.query.properties !== undefined) throw new NotFoundError('Folders carry no properties');
        const children: { uri: string; folder: boolean }[] = [];
        const locals = new Map((await listRepositories(ctx.db, { rclass: 'local' })).map((r) => [r.id, r]));
        for (const id of await repositoryIdsInTrash(ctx.db)) {
          const repo = locals.get(id);
          if (repo && (await can(ctx, request.principal, 'read', repo, '')))
            children.push({ uri: `/${repo.key}`, folder: true });
        }
        children.sort((a, b) => (a.uri < b.uri ? -1 : 1));
        return { ...root, children } satisfies StorageInfo;
      }
      const slash = rest.indexOf('/');
      const path = RepoPath.parse(
        slash < 0 ? rest : rest.slice(0, slash),
        slash < 0 ? '' : rest.slice(slash + 1),
      );
      const repo = await findRepository(ctx.db, path.repoKey);
      if (repo?.rclass !== 'local') throw repositoryHidden(request.principal, path.repoKey);
      await authorize(ctx, request.principal, 'read', repo, path.path);
      const items = await findTrashItems(ctx.db, repo.id, path.path);
      const file = items.length === 1 && items[0]!.path === path.path ? items[0]! : undefined;
      if (!file && items.length === 0)
        throw new NotFoundError(`'${path.path || '/'}' is not in the trash of repository '${repo.key}'`);
      if (request.query.properties !== undefined) {
        if (!file) throw new NotFoundError('Folders carry no properties');
        // Artifactory's trash properties, beside the file's own.
        const all: Record<string, string[]> = {
          ...(file.properties as Record<string, string[]>),
          'trash.time': [String(file.deletedAt.getTime())],
          'trash.deletedBy': [file.deletedBy],
          'trash.originalRepository': [repo.key],
          'trash.originalPath': [file.path],
          'trash.expiresAt': [file.expiresAt.toISOString()],
        };
        const wanted = request.query.properties ? request.query.properties.split(',') : Object.keys(all);
        const properties = Object.fromEntries(
          wanted.filter((k) => Object.hasOwn(all, k)).map((k) => [k, all[k]!]),
        );
        if (Object.keys(properties).length === 0) throw new NotFoundError('No properties');
        return { properties, uri };
      }
      if (file) {
        const checksums = { sha1: file.sha1, md5: file.md5, sha256: file.sha256 };
        return {
          repo: TRASHCAN_REPO_KEY,
          path: `/${repo.key}/${file.path}`,
          created: file.createdAt.toISOString(),
          createdBy: file.createdBy,
          lastModified: file.deletedAt.toISOString(),
          modifiedBy: file.deletedBy,
          lastUpdated: file.deletedAt.toISOString(),
          size: String(file.size),
          mimeType: file.mimeType ?? mimeTypeOf(file.path),
          checksums,
          originalChecksums: checksums,
          uri,
        } satisfies StorageInfo;
      }
      const children = await listTrashChildren(ctx.db, repo.id, path.path);
      return {
        ...root,
        path: `/${repo.key}${path.path ? `/${path.path}` : ''}`,
        children: children.map((c) => ({ uri: `/${c.name}`, folder: c.folder })),
      } satisfies StorageInfo;
    };
    const listingSchema = {
      tags,
      summary: 'The trash as a folder tree: /{repoKey}/{path} (read permission on the original)',
      querystring: storageQuery,
      response: { 200: z.union([storageInfoSchema, storagePropertiesSchema]) },
    };
    app.get(`/api/storage/${TRASHCAN_REPO_KEY}`, { config: open, schema: listingSchema }, listing);
    app.get(`/api/storage/${TRASHCAN_REPO_KEY}/*`, { config: open, schema: listingSchema }, listing);
  };
}
