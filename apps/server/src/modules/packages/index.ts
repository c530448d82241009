import type { FastifyInstance } from 'fastify';
import mercurius from 'mercurius';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import { registerArchiveIndexer } from './archive-entries.ts';
import { packagesArtifactExtension } from './artifact-extension.ts';
import { DownloadCounter } from './downloads.ts';
import { packagesErrorFormatter, packagesResolvers, packagesSchema } from './packages.graphql.ts';
import { PackageReader } from './packages.read.ts';
import { packagesRoutes } from './packages.routes.ts';

export interface PackagesModule {
  reader: PackageReader;
  downloads: DownloadCounter;
}

/**
 * The packages index's queries (GraphQL, spec 001 §7), the version-details calls and the download
 * counter. Registered after the repositories module: it registers into its artifact extension point
 * (stored, removed, downloaded files) and reads it through `repositories.api.ts`.
 */
export async function registerPackages(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
): Promise<PackagesModule> {
  const reader = new PackageReader(platform.database.db, access.authorizer, platform.now);
  const downloads = new DownloadCounter(platform.database.db, (err) =>
    platform.logging.server.warn({ err: err.message }, 'package download counts not written'),
  );
  platform.jobs.recurring(downloads.job());
  app.repositories.artifactExtensions.register(
    packagesArtifactExtension({ blobs: platform.blobs, downloads }),
  );
  app.addHook('onClose', async () => downloads.flush());
  registerArchiveIndexer(platform.jobs, { db: platform.database.db, blobs: platform.blobs });
  // GraphQL execution only: the routes are ours (spec paths, access rules, error shape).
  await app.register(mercurius, {
    schema: packagesSchema,
    resolvers: packagesResolvers(reader, app.repositories.formats) as never,
    routes: false,
    graphiql: false,
    jit: 1, // compiled (graphql-jit) from the second run of a query text
    queryDepth: 8,
    // issue 12 §17: a resolver's unexpected error (a database error and its SQL) is not the client's to read
    errorFormatter: packagesErrorFormatter,
  });
  await app.register(packagesRoutes(app.repositories));
  return { reader, downloads };
}
