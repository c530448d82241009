import type { FastifyInstance } from 'fastify';
import mercurius from 'mercurius';
import type { Platform } from '../../app.ts';
import type { AccessModule } from '../access/index.ts';
import { attachArchiveIndexer } from './archive-entries.ts';
import { DownloadCounter } from './downloads.ts';
import { packagesErrorFormatter, packagesResolvers, packagesSchema } from './packages.graphql.ts';
import { PackageReader } from './packages.read.ts';
import { packagesRoutes } from './packages.routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Client downloads of package files, counted off the hot path (see `DownloadCounter`). */
    packageDownloads?: DownloadCounter;
  }
}

export interface PackagesModule {
  reader: PackageReader;
  downloads: DownloadCounter;
}

/**
 * The packages index's queries (GraphQL, spec 001 §7), the version-details calls and the download
 * counter. Registered after the repositories module, whose context it reads.
 */
export async function registerPackages(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
): Promise<PackagesModule> {
  const reader = new PackageReader(platform.database.db, access.authorizer);
  const downloads = new DownloadCounter(platform.database.db, (err) =>
    platform.logging.server.warn({ err: err.message }, 'package download counts not written'),
  );
  downloads.start();
  app.decorate('packageDownloads', downloads);
  app.addHook('onClose', async () => downloads.stop());
  const detach = attachArchiveIndexer({
    db: platform.database.db,
    blobs: platform.blobs,
    onError: (err) => platform.logging.server.warn({ err: err.message }, 'archive entries not indexed'),
  });
  app.addHook('onClose', async () => detach());
  // GraphQL execution only: the routes are ours (spec paths, access rules, error shape).
  await app.register(mercurius, {
    schema: packagesSchema,
    resolvers: packagesResolvers(reader) as never,
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
