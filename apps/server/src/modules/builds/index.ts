import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import type { RepositoriesContext } from '../repositories/repositories.api.ts';
import { buildsRoutes } from './builds.routes.ts';
import { BUILD_DELETE_JOB, type BuildDeleteJob, type BuildsContext, deleteRuns } from './builds.service.ts';

/**
 * Builds (issue 19): build-info documents published by CI, linked by checksum to stored files,
 * promoted, kept by retention rules, and described as SLSA provenance. Large deletions run on the
 * queue `builds.delete`.
 */
export async function registerBuilds(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
  repositories: RepositoriesContext,
): Promise<BuildsContext> {
  const ctx: BuildsContext = {
    db: platform.database.db,
    repositories,
    authorizer: access.authorizer,
    jobs: platform.jobs,
    now: platform.now,
  };
  platform.jobs.queue<BuildDeleteJob>({
    name: BUILD_DELETE_JOB,
    handler: async (job) => {
      await deleteRuns(ctx, job);
    },
    maxAttempts: 5,
  });
  await app.register(buildsRoutes(ctx));
  return ctx;
}
