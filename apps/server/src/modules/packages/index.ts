import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import { registerArchiveIndexer } from './archive-entries.ts';
import { packagesArtifactExtension } from './artifact-extension.ts';
import { DownloadCounter } from './downloads.ts';
import { packagesErrorFormatter, packagesResolvers, packagesSchema } from './packages.graphql.ts';
import { PackageReader } from './packages.read.ts';
import { type GraphExecute, packagesRoutes } from './packages.routes.ts';

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
  // GraphQL execution only: the routes are ours (spec paths, access rules, error shape). mercurius and
  // graphql-js load with the first query, on an instance of their own (issue 24, idle memory: 30 MiB).
  let engine: Promise<FastifyInstance> | undefined;
  const start = async () => {
    const [{ default: Fastify }, { default: mercurius }] = await Promise.all([
      import('fastify'),
      import('mercurius'),
    ]);
    const graph = Fastify({ logger: false });
    await graph.register(mercurius, {
      schema: packagesSchema,
      resolvers: packagesResolvers(reader, app.repositories.formats) as never,
      routes: false,
      graphiql: false,
      jit: 1, // compiled (graphql-jit) from the second run of a query text
      queryDepth: 8,
      // issue 12 §17: a resolver's unexpected error (a database error and its SQL) is not the client's to read
      errorFormatter: packagesErrorFormatter,
    });
    await graph.ready();
    return graph;
  };
  const execute: GraphExecute = async (reply, source, context, variables, operationName) => {
    engine ??= start().catch((err: unknown) => {
      engine = undefined;
      throw err;
    });
    // As `reply.graphql` would: the reply in the context (the error formatter names its request).
    return (await engine).graphql(source, { ...context, reply } as never, variables, operationName);
  };
  app.addHook('onClose', async () => {
    const started = await engine?.catch(() => undefined);
    await started?.close();
  });
  await app.register(packagesRoutes(app.repositories, execute));
  return { reader, downloads };
}
