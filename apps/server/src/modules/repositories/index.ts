import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stdSerializers } from 'pino';
import type { FormatRegistry } from '../../formats/registry.ts';
import type { Platform } from '../../platform/platform.ts';
import { clientCredentials } from '../access/client-credentials.service.ts';
import type { AccessModule } from '../access/index.ts';
import { archiveRoutes } from './archive.routes.ts';
import { ArtifactExtensionPoint } from './artifact-extensions.ts';
import { binariesUsage, usageByRepository } from './artifacts.queries.ts';
import { registerArtifactRoutes } from './artifacts.routes.ts';
import { registerBlobScrub } from './blob-scrub.ts';
import type { RepositoriesContext } from './context.ts';
import { createRequestContext, createSystemHandle, notifyFormatOfChange } from './format-context.ts';
import { quotaRoutes } from './quota.routes.ts';
import { RemoteFetcher } from './remote.service.ts';
import { repositoryRoutes } from './repositories.routes.ts';
import {
  ensureDefaultRepository,
  findRepository,
  listRepositories,
  upstreamAddressCheck,
} from './repositories.service.ts';
import { registerRepositoryMetrics } from './repository-metrics.ts';
import { storageRoutes } from './storage.routes.ts';
import { defaultStorageUsage, registerUsageSnapshots } from './storage-usage.service.ts';
import { trashRoutes } from './trash.routes.ts';
import { registerTrashExpiry } from './trash.service.ts';
import { uiRoutes } from './ui.routes.ts';

export type { RepositoriesContext } from './context.ts';

export { RepoPath } from './repo-path.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The repositories module's services; other modules use it through `repositories.api.ts`. */
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
    artifactExtensions: new ArtifactExtensionPoint(),
    withLock: platform.database.withLock,
    formatSettings: {
      npmPublishMaxBytes: platform.config.npmPublishMaxBytes,
      ociGcIntervalSecs: platform.config.ociGcIntervalSecs,
      ociGcGraceSecs: platform.config.ociGcGraceSecs,
      ociUploadExpirySecs: platform.config.ociUploadExpirySecs,
    },
    afterFormatChange: (repo, change) => notifyFormatOfChange(ctx, repo, change),
    trash: { defaultRetentionDays: platform.config.trashRetentionDays, now: platform.now },
  };
  app.decorate('repositories', ctx);
  await app.register(repositoryRoutes(ctx));
  await app.register(storageRoutes(ctx, platform.now));
  // issue 21: quotas, the storage summary's sources and the daily usage snapshot.
  ctx.storageUsage = defaultStorageUsage();
  await app.register(quotaRoutes(ctx));
  registerUsageSnapshots(platform.jobs, ctx.db, platform.now);
  registerRepositoryMetrics(platform.metrics, ctx.db, platform.now);
  await app.register(uiRoutes(ctx));
  await app.register(archiveRoutes(ctx));
  await app.register(trashRoutes(ctx));
  registerTrashExpiry(platform);
  await registerArtifactRoutes(app, ctx);
  registerBlobScrub(platform);
  // Support bundles (issue 15): repository settings (secret fields are redacted there) and storage use.
  app.system.support.registerSupportSource('repositories', () => listRepositories(ctx.db));
  app.system.support.registerSupportSource(
    'storage',
    async () => ({ ...(await binariesUsage(ctx.db)), repositories: await usageByRepository(ctx.db) }),
    { section: 'system' },
  );
  // Errors on a repository's client endpoint speak its format's language when the format has one.
  app.errorRenderers.push(async (error, request, reply, thrown) => {
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
    try {
      return await format?.errorBody?.(error, reply);
    } catch (failure) {
      // The client still gets the core's envelope; the broken renderer is the server's fault to see.
      request.log.error(
        { err: failure, format: format?.id, error: stdSerializers.err(thrown as Error) },
        'format error renderer failed; answering with the core envelope',
      );
      return undefined;
    }
  });
  // What formats get for their own routes and jobs: explicit services, never `app.granary`.
  for (const format of formats.list())
    await format.routes?.(app, {
      async requestContext(request, repoKey) {
        const repo = await findRepository(ctx.db, repoKey);
        return repo ? createRequestContext(ctx, request, repo) : null;
      },
      async systemHandle(repoKey) {
        const repo = await findRepository(ctx.db, repoKey);
        return repo ? createSystemHandle(ctx, repo) : null;
      },
      repositoryKeys: async (packageType) =>
        (await listRepositories(ctx.db, { packageType }, formats)).map((r) => r.key),
      settings: ctx.formatSettings,
      tempDir: path.join(platform.config.home, 'tmp'),
      jobs: platform.jobs,
      uploadLimits: platform.uploads.onRequest,
      now: platform.now,
    });
  await ensureDefaultRepository(ctx.db);
  return ctx;
}
