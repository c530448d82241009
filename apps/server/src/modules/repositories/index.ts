import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '../../app.ts';
import type { FormatRegistry } from '../../formats/registry.ts';
import { clientCredentials } from '../access/client-credentials.service.ts';
import type { AccessModule } from '../access/index.ts';
import { archiveRoutes } from './archive.routes.ts';
import { registerArtifactRoutes } from './artifacts.routes.ts';
import { registerBlobScrub } from './blob-scrub.ts';
import type { RepositoriesContext } from './context.ts';
import { createFormatContext, createSystemFormatContext, SYSTEM_PRINCIPAL } from './format-context.ts';
import { RemoteFetcher } from './remote.service.ts';
import { repositoryRoutes } from './repositories.routes.ts';
import {
  ensureDefaultRepository,
  findRepository,
  listRepositories,
  upstreamAddressCheck,
} from './repositories.service.ts';
import { storageRoutes } from './storage.routes.ts';
import { uiRoutes } from './ui.routes.ts';

export type { RepositoriesContext } from './context.ts';

export { RepoPath } from './repo-path.ts';

declare module 'fastify' {
  interface FastifyInstance {
    repositories: RepositoriesContext;
  }
}

/** Repository configuration, the artifact endpoints, the storage API; a fresh install's default repository. */
export async function registerRepositories(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
  formats: FormatRegistry,
): Promise<RepositoriesContext> {
  const ctx: RepositoriesContext = {
    db: platform.database.db,
    blobs: platform.blobs,
    blobCache: platform.blobCache,
    outbound: platform.outbound,
    formats,
    authorizer: access.authorizer,
    log: platform.logging.server,
    remote: new RemoteFetcher(() => ctx),
    credentials: clientCredentials(access.context),
    baseUrl: platform.config.baseUrl,
    checkUpstreamAddress: upstreamAddressCheck(platform.config.outboundAllowlist),
  };
  app.decorate('repositories', ctx);
  await app.register(repositoryRoutes(ctx));
  await app.register(storageRoutes(ctx));
  await app.register(uiRoutes(ctx));
  await app.register(archiveRoutes(ctx));
  await registerArtifactRoutes(app, ctx);
  registerBlobScrub(platform);
  // Errors on a repository's client endpoint speak its format's language when the format has one.
  app.errorRenderers.push(async (error, request, reply) => {
    const match = /^\/repository\/([^/?]+)/.exec(request.url);
    if (!match) return undefined;
    let key: string;
    try {
      key = decodeURIComponent(match[1]!);
    } catch {
      return undefined;
    }
    const repo = await findRepository(ctx.db, key);
    const format = repo && formats.get(repo.packageType);
    return format?.errorBody?.(error, reply);
  });
  for (const format of formats.list())
    await format.routes?.(
      app,
      Object.assign(
        async (
          request: FastifyRequest,
          reply: FastifyReply,
          repoKey: string,
          opts?: { system?: boolean },
        ) => {
          const repo = await findRepository(ctx.db, repoKey);
          const principal = opts?.system ? SYSTEM_PRINCIPAL : request.principal;
          return repo ? createFormatContext(ctx, app, request, reply, repo, principal) : null;
        },
        {
          repositoryKeys: async (packageType?: string) =>
            (await listRepositories(ctx.db, { packageType }, formats)).map((r) => r.key),
          system: async (repoKey: string) => {
            const repo = await findRepository(ctx.db, repoKey);
            return repo ? createSystemFormatContext(ctx, app, repo) : null;
          },
        },
      ),
    );
  await ensureDefaultRepository(ctx.db);
  return ctx;
}
