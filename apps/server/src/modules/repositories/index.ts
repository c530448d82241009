import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../app.ts';
import type { FormatRegistry } from '../../formats/registry.ts';
import type { AccessModule } from '../access/index.ts';
import { archiveRoutes } from './archive.routes.ts';
import { registerArtifactRoutes } from './artifacts.routes.ts';
import type { RepositoriesContext } from './context.ts';
import { RemoteFetcher } from './remote.service.ts';
import { repositoryRoutes } from './repositories.routes.ts';
import { ensureDefaultRepository } from './repositories.service.ts';
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
    outbound: platform.outbound,
    formats,
    authorizer: access.authorizer,
    log: platform.logging.server,
    remote: new RemoteFetcher(() => ctx),
    baseUrl: platform.config.baseUrl,
  };
  app.decorate('repositories', ctx);
  await app.register(repositoryRoutes(ctx));
  await app.register(storageRoutes(ctx));
  await app.register(uiRoutes(ctx));
  await app.register(archiveRoutes(ctx));
  await registerArtifactRoutes(app, ctx);
  await ensureDefaultRepository(ctx.db);
  return ctx;
}
