import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { folderArchive } from './archive.service.ts';
import type { RepositoriesContext } from './context.ts';
import { RepoPath } from './repo-path.ts';

const params = z.object({ key: z.string().min(1).max(200), '*': z.string().optional() });
const query = z.object({
  archiveType: z.enum(['zip'], { message: 'archiveType: only zip is supported' }).default('zip'),
});

/**
 * Artifactory's "Retrieve Folder or Repository Archive":
 * `GET /api/archive/download/{key}/{path}?archiveType=zip` streams the folder as a zip (stored, not
 * deflated: artifacts are mostly compressed already). Files the caller may not read are left out;
 * more than 10,000 files or 10 GiB answers 400 ARCHIVE_TOO_LARGE.
 */
export function archiveRoutes(ctx: RepositoriesContext): FastifyPluginAsyncZod {
  return async (app) => {
    const schema = {
      tags: ['storage'],
      summary: 'A folder or repository as a zip (?archiveType=zip)',
      params,
      querystring: query,
    };
    const handler = async (
      request: FastifyRequest<{ Params: z.infer<typeof params> }>,
      reply: FastifyReply,
    ) => {
      const path = RepoPath.parse(request.params.key, request.params['*'] ?? '');
      const archive = await folderArchive(ctx, request.principal, path);
      reply
        .header('content-type', 'application/zip')
        .header('x-content-type-options', 'nosniff')
        .header(
          'content-disposition',
          `attachment; filename*=UTF-8''${encodeURIComponent(`${archive.name}.zip`)}`,
        )
        .header('x-archive-files', String(archive.files));
      return reply.code(200).send(archive.stream);
    };
    const config = { access: 'public' as const };
    app.get('/api/archive/download/:key', { config, schema }, handler);
    app.get('/api/archive/download/:key/*', { config, schema }, handler);
  };
}
